// name: memory_erase
// Hard delete for data-protection requests: the tenant's memories matching $id, $userId
// and/or the scope subtree $scope (the scope and every scope below it), with their edges,
// embeddings and RELATES projections. Returns how many memories were deleted.
MATCH (m:Memory {tenant: $tenant})
WHERE ($id IS NULL OR m.id = $id)
  AND ($userId IS NULL OR m.userId = $userId)
  AND ($scope IS NULL OR m.scope = $scope OR m.scope STARTS WITH $scope + '/')
CALL (m) {
  OPTIONAL MATCH (m)-[:ABOUT {role: 'subject'}]->(:Entity)-[r:RELATES {factId: m.id}]->()
  DELETE r
}
DETACH DELETE m
RETURN count(*) AS erased
