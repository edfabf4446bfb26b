// name: export_edges
// The outgoing edges of one page of a tenant's memories for export (page in id order after
// $after, at most $limit sources; within the scope subtree $scope or the whole tenant), to
// memories of the same tenant that the export also holds. Scope links (IN_SCOPE, CHILD_OF)
// are not memory edges: an import rebuilds them from the nodes' scopes.
MATCH (a:Memory {tenant: $tenant})
WHERE a.id > $after AND ($scope IS NULL OR a.scope = $scope OR a.scope STARTS WITH $scope + '/')
WITH a ORDER BY a.id LIMIT $limit
OPTIONAL MATCH (a)-[r]->(b:Memory {tenant: $tenant})
WHERE $scope IS NULL OR b.scope = $scope OR b.scope STARTS WITH $scope + '/'
WITH a, collect(r {type: type(r), target: b.id, props: properties(r)}) AS edges
RETURN a.id AS id, edges
ORDER BY id
