// name: schema_entity_name_key
// creates: entity_tenant_name_key
// Range index: entity resolution by normalised name.
CREATE INDEX entity_tenant_name_key IF NOT EXISTS FOR (n:Entity) ON (n.tenant, n.nameKey)
