// name: tenant_after
// The first tenant after $after, in order, that holds a memory (none: the last was passed):
// a walk over the store's tenants costs one index seek each, however many memories they hold.
MATCH (m:Memory)
USING INDEX m:Memory(tenant, id)
WHERE m.tenant > $after AND m.id IS NOT NULL
RETURN m.tenant AS tenant
ORDER BY m.tenant
LIMIT 1
