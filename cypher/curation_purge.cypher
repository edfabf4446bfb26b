// name: curation_purge
// One batch of hard deletion in the scope subtree ($scope, $prefix = $scope + '/'):
// records of $kinds with a provenance in $provenances (machine-made ones) invalidated
// before $olderThan, except tombstones (reason 'forgotten': they keep extraction from
// restating what a user asked to forget), with their edges and RELATES projections; the
// scopes' memory counters are lowered to match. At most $limit per call; returns how many.
MATCH (m:Memory {tenant: $tenant})
WHERE (m.scope = $scope OR m.scope STARTS WITH $prefix) AND m.kind IN $kinds AND m.provenance IN $provenances
  AND m.invalidatedAt < $olderThan AND m.invalidationReason <> 'forgotten'
WITH m
LIMIT $limit
WITH collect(m) AS doomed
CALL (doomed) {
  UNWIND doomed AS m
  WITH m.scope AS path, count(*) AS n
  MATCH (s:Scope {tenant: $tenant, path: path})
  SET s._lock = true
  SET s.memories = coalesce(s.memories, n) - n
  REMOVE s._lock
}
CALL (doomed) {
  UNWIND doomed AS m
  OPTIONAL MATCH (m)-[:ABOUT {role: 'subject'}]->(:Entity)-[r:RELATES {factId: m.id}]->()
  DELETE r
}
UNWIND doomed AS m
DETACH DELETE m
RETURN count(*) AS purged
