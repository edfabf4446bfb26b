// name: schema_decision_id
// creates: decision_tenant_id
// Unique (tenant, id) for :Decision nodes.
CREATE CONSTRAINT decision_tenant_id IF NOT EXISTS FOR (n:Decision) REQUIRE (n.tenant, n.id) IS UNIQUE
