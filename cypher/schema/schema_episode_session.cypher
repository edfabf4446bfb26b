// name: schema_episode_session
// creates: episode_tenant_session
// Range index: episodes of a tenant by conversation (chat history reads and clears).
CREATE INDEX episode_tenant_session IF NOT EXISTS FOR (n:Episode) ON (n.tenant, n.sessionId)
