// name: schema_memory_scope
// creates: memory_tenant_scope
// Range index: memories of a tenant by scope (scope filtering).
CREATE INDEX memory_tenant_scope IF NOT EXISTS FOR (n:Memory) ON (n.tenant, n.scope)
