// name: entity_visible
// The believed entities among $ids that are visible in a scope chain (relate() checks).
UNWIND $ids AS wanted
MATCH (e:Entity {tenant: $tenant, id: wanted})
WHERE e.scope IN $chain AND e.invalidatedAt IS NULL
RETURN e {.*, embedding: null, embeddingB: null} AS node
