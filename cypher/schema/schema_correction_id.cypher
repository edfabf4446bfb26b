// name: schema_correction_id
// creates: correction_tenant_id
// Unique (tenant, id) for :Correction nodes.
CREATE CONSTRAINT correction_tenant_id IF NOT EXISTS FOR (n:Correction) REQUIRE (n.tenant, n.id) IS UNIQUE
