// name: entity_create
// Writes one new :Entity in its scope. $props holds the node's properties (no tenant).
CREATE (e:Memory:Entity)
SET e = $props, e.tenant = $tenant, e.kind = 'entity', e.createdAt = $now
{{vector_placed(e)}}
WITH e
MATCH (scope:Scope {tenant: $tenant, path: e.scope})
CREATE (e)-[:IN_SCOPE]->(scope)
RETURN e {.*, embedding: null, embeddingB: null} AS node
