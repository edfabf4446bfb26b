// name: curation_dedupe
// One batch of deduplication in the scope subtree ($scope and every scope below it,
// $prefix = $scope + '/'): believed records of $kinds with the same scope, kind, normalised
// text (textKey), steps, end of valid time (both still valid, or ended at the same
// instant; the start is when each restatement was recorded) and owner (user, agent,
// session: two people's records never merge) form a group; the most trusted record of a group
// (then the oldest, then the smallest id) is kept, and every other machine-made member
// (provenance in $automatic) is invalidated with reason 'duplicate' and SUPERSEDES from
// the kept one. A person's records are never invalidated here. At most $limit groups per
// call (the caller repeats until none is left); returns the invalidated and kept ids.
MATCH (m:Memory {tenant: $tenant})
WHERE (m.scope = $scope OR m.scope STARTS WITH $prefix) AND m.kind IN $kinds
  AND m.invalidatedAt IS NULL AND m.status <> 'rejected'
WITH m
ORDER BY CASE m.provenance WHEN 'human-correction' THEN 5 WHEN 'user' THEN 4 WHEN 'manual' THEN 3
           WHEN 'extraction' THEN 2 ELSE 1 END DESC, m.createdAt, m.id
WITH m.scope AS path, m.kind AS kind, m.textKey AS textKey, m.stepsKey AS stepsKey, m.validTo AS validTo,
     m.userId AS userId, m.agentId AS agentId, m.sessionId AS sessionId, collect(m) AS members
WHERE size(members) > 1
WITH head(members) AS kept, [x IN tail(members) WHERE x.provenance IN $automatic] AS losers
WHERE size(losers) > 0
WITH kept, losers
LIMIT $limit
UNWIND losers AS o
SET o.invalidatedAt = $now, o.invalidationReason = 'duplicate'
CREATE (kept)-[:SUPERSEDES {reason: 'duplicate', at: $now}]->(o)
RETURN o.id AS id, kept.id AS kept
