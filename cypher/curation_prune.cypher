// name: curation_prune
// One batch of pruning in the scope subtree ($scope, $prefix = $scope + '/'): believed
// records of $kinds with a provenance in $provenances (machine-made ones; the caller
// refuses any other) last touched (corroborated, used, else created) before $olderThan
// and never validated by a person are invalidated with reason 'pruned'. At most $limit
// per call; returns the ids.
MATCH (m:Memory {tenant: $tenant})
WHERE (m.scope = $scope OR m.scope STARTS WITH $prefix) AND m.kind IN $kinds AND m.provenance IN $provenances
  AND m.invalidatedAt IS NULL
  AND coalesce(m.lastCorroboratedAt, m.lastUsedAt, m.createdAt) < $olderThan
  AND NONE(line IN coalesce(m.statusLog, []) WHERE line CONTAINS '(validated')
WITH m
LIMIT $limit
SET m.invalidatedAt = $now, m.invalidationReason = 'pruned'
RETURN m.id AS id
