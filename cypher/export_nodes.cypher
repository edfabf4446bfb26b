// name: export_nodes
// One page of a tenant's memories for export (within the scope subtree $scope, or all of
// them when it is null), in id order after $after, at most $limit: every property but the
// tenant, embeddings included (the active slot's vectors, under the names of slot a, whichever
// slot the store uses: _base/layout.py), so an import can rebuild the node exactly.
MATCH (m:Memory {tenant: $tenant})
WHERE m.id > $after AND ($scope IS NULL OR m.scope = $scope OR m.scope STARTS WITH $scope + '/')
WITH m ORDER BY m.id LIMIT $limit
RETURN m.id AS id, m {.*, tenant: null, embedding: {{vector(m)}}, embeddingB: null,
                        storeVectors: {{store_vectors(m)}}, storeVectorsB: null} AS props
ORDER BY id
