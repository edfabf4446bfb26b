// name: schema_memory_id
// creates: memory_tenant_id
// Unique (tenant, id) across every memory kind: writes are idempotent on id per tenant.
CREATE CONSTRAINT memory_tenant_id IF NOT EXISTS FOR (n:Memory) REQUIRE (n.tenant, n.id) IS UNIQUE
