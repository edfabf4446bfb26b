// name: episode_create
// Writes new :Episode nodes (immutable once written) in their scope.
// $rows: [{props}]; props holds the node's properties (no tenant).
UNWIND $rows AS row
CREATE (m:Memory:Episode)
SET m = row.props, m.tenant = $tenant, m.kind = 'episode', m.createdAt = $now
{{vector_placed(m)}}
WITH m
MATCH (scope:Scope {tenant: $tenant, path: m.scope})
CREATE (m)-[:IN_SCOPE]->(scope)
RETURN m {.*, embedding: null, embeddingB: null} AS node
