// name: floor_indexed_unique
// The indexed floor's (tenant, id) uniqueness, as memory_tenant_id and fact_tenant_id.
CREATE CONSTRAINT floor_tenant_id IF NOT EXISTS FOR (n:FloorIndexed) REQUIRE (n.tenant, n.id) IS UNIQUE
