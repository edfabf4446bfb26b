// name: schema_entity_name
// creates: entity_unique_name
// Never two entities with the same normalised name and type in one scope of a tenant.
CREATE CONSTRAINT entity_unique_name IF NOT EXISTS FOR (e:Entity) REQUIRE (e.tenant, e.scope, e.type, e.nameKey) IS UNIQUE
