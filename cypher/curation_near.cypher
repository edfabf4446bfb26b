// name: curation_near
// Near-duplicate candidates for consolidation, $scan records at a time in id order after
// $after: believed machine-made records ($automatic) of $kinds in the scope subtree
// ($scope, $prefix = $scope + '/') and, for each, the ids of its $neighbours nearest
// records by the vector index that are believed, machine-made, of the same kind, scope,
// owner (user, agent, session) and end of valid time (both still valid, or ended at the
// same instant), and have exact
// cosine similarity >= $threshold (scaled to 0..1 like vector.similarity.cosine). A record with no neighbour comes back with an empty list, so
// the caller's cursor advances past it.
MATCH (m:Memory {tenant: $tenant})
WHERE (m.scope = $scope OR m.scope STARTS WITH $prefix) AND m.kind IN $kinds AND m.provenance IN $automatic
  AND m.invalidatedAt IS NULL AND m.status <> 'rejected' AND {{vector(m)}} IS NOT NULL AND m.id > $after
WITH m
ORDER BY m.id
LIMIT $scan
CALL (m) {
  CALL db.index.vector.queryNodes('{{vector_index}}', $neighbours, {{vector(m)}}) YIELD node AS o
  WITH o
  WHERE o.tenant = $tenant AND o.scope = m.scope AND o.kind = m.kind AND o.id <> m.id
    AND o.provenance IN $automatic AND o.invalidatedAt IS NULL AND o.status <> 'rejected'
    AND ((o.validTo IS NULL AND m.validTo IS NULL) OR o.validTo = m.validTo)
    AND coalesce(o.userId, '') = coalesce(m.userId, '') AND coalesce(o.agentId, '') = coalesce(m.agentId, '')
    AND coalesce(o.sessionId, '') = coalesce(m.sessionId, '')
    AND size({{vector(o)}}) = size({{vector(m)}})
    AND vector.similarity.cosine({{vector(o)}}, {{vector(m)}}) >= $threshold
  WITH o ORDER BY vector.similarity.cosine({{vector(o)}}, {{vector(m)}}) DESC, o.id
  RETURN collect(o.id) AS near
}
RETURN m.id AS id, near
ORDER BY id
