// name: memory_existing
// The memories of a tenant among the given ids (idempotent writes return these unchanged).
UNWIND $ids AS wanted
MATCH (m:Memory {tenant: $tenant, id: wanted})
RETURN m {.*, embedding: null, embeddingB: null} AS node
