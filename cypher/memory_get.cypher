// name: memory_get
// One memory of a tenant by id, with the records that superseded it and, for an insight
// or procedure, the ids it cites.
MATCH (m:Memory {tenant: $tenant, id: $id})
OPTIONAL MATCH (newer:Memory {tenant: $tenant})-[s:SUPERSEDES]->(m)
WITH m, collect(s {by: newer.id, .reason, .at, .note}) AS supersededBy
RETURN m {.*, embedding: null, embeddingB: null, cites: [(m)-[:CITES]->(c:Memory {tenant: $tenant}) | c.id]} AS node,
       supersededBy
