// name: floor_indexed_scope
// The indexed floor's (tenant, scope) range index, as memory_tenant_scope.
CREATE INDEX floor_tenant_scope IF NOT EXISTS FOR (n:FloorIndexed) ON (n.tenant, n.scope)
