// name: memory_erase
// Hard delete for data-protection requests: the tenant's memories matching $id, $userId
// and/or the scope subtree $scope (the scope and every scope below it), with their edges,
// embeddings and RELATES projections; the scopes' memory counters are lowered to match.
// Deletes at most $limit memories per call (the caller repeats until fewer come back), so
// a very large erase never needs one huge transaction. The windows of a long episode
// (:Chunk, not counted as memories) go with their episode. Returns how many were deleted.
MATCH (m:Memory {tenant: $tenant})
WHERE NOT m:Chunk AND ($id IS NULL OR m.id = $id)
  AND ($userId IS NULL OR m.userId = $userId)
  AND ($scope IS NULL OR m.scope = $scope OR m.scope STARTS WITH $scope + '/')
WITH m LIMIT $limit
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
CALL (doomed) {
  UNWIND doomed AS m
  MATCH (window:Chunk)-[:PART_OF]->(m)
  DETACH DELETE window
}
UNWIND doomed AS m
DETACH DELETE m
RETURN count(*) AS erased
