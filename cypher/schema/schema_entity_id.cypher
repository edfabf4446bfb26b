// name: schema_entity_id
// creates: entity_tenant_id
// Unique (tenant, id) for :Entity nodes.
CREATE CONSTRAINT entity_tenant_id IF NOT EXISTS FOR (n:Entity) REQUIRE (n.tenant, n.id) IS UNIQUE
