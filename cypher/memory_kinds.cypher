// name: memory_kinds
// The id and kind of each memory of a tenant among the given ids (cheap existence check).
UNWIND $ids AS wanted
MATCH (m:Memory {tenant: $tenant, id: wanted})
RETURN m.id AS id, m.kind AS kind
