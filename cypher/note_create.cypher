// name: note_create
// Writes one :Note in its scope ($props holds its properties, no tenant).
CREATE (n:Memory:Note)
SET n = $props, n.tenant = $tenant, n.kind = 'note', n.createdAt = $now
{{vector_placed(n)}}
WITH n
MATCH (scope:Scope {tenant: $tenant, path: n.scope})
CREATE (n)-[:IN_SCOPE]->(scope)
RETURN n {.*, embedding: null, embeddingB: null} AS node
