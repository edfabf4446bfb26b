// name: schema_scope_path
// creates: scope_tenant_path
// One :Scope node per (tenant, path).
CREATE CONSTRAINT scope_tenant_path IF NOT EXISTS FOR (s:Scope) REQUIRE (s.tenant, s.path) IS UNIQUE
