// name: schema_summary_id
// creates: summary_tenant_id
// Unique (tenant, id) for :Summary nodes.
CREATE CONSTRAINT summary_tenant_id IF NOT EXISTS FOR (n:Summary) REQUIRE (n.tenant, n.id) IS UNIQUE
