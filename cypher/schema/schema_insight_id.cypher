// name: schema_insight_id
// creates: insight_tenant_id
// Unique (tenant, id) for :Insight nodes.
CREATE CONSTRAINT insight_tenant_id IF NOT EXISTS FOR (n:Insight) REQUIRE (n.tenant, n.id) IS UNIQUE
