// name: schema_note_id
// creates: note_tenant_id
// Unique (tenant, id) for :Note nodes.
CREATE CONSTRAINT note_tenant_id IF NOT EXISTS FOR (n:Note) REQUIRE (n.tenant, n.id) IS UNIQUE
