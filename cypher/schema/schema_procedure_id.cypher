// name: schema_procedure_id
// creates: procedure_tenant_id
// Unique (tenant, id) for :Procedure nodes.
CREATE CONSTRAINT procedure_tenant_id IF NOT EXISTS FOR (n:Procedure) REQUIRE (n.tenant, n.id) IS UNIQUE
