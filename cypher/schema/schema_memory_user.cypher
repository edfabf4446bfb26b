// name: schema_memory_user
// creates: memory_tenant_user
// Range index: memories by user id (erase requests).
CREATE INDEX memory_tenant_user IF NOT EXISTS FOR (n:Memory) ON (n.tenant, n.userId)
