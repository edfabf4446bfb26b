// name: schema_episode_id
// creates: episode_tenant_id
// Unique (tenant, id) for :Episode nodes.
CREATE CONSTRAINT episode_tenant_id IF NOT EXISTS FOR (n:Episode) REQUIRE (n.tenant, n.id) IS UNIQUE
