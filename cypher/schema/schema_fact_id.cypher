// name: schema_fact_id
// creates: fact_tenant_id
// Unique (tenant, id) for :Fact nodes.
CREATE CONSTRAINT fact_tenant_id IF NOT EXISTS FOR (n:Fact) REQUIRE (n.tenant, n.id) IS UNIQUE
