// name: tenant_list
// Every tenant of the database with how many memories it holds (its scopes' counters added
// up: the number of memories stored in each scope, kept by writes and erases) and how many
// scopes it has. The one read across tenants: names and counts only, never a record.
MATCH (s:Scope)
WHERE s.tenant IS NOT NULL
RETURN s.tenant AS tenant, sum(coalesce(s.memories, 0)) AS memories, count(s) AS scopes
ORDER BY tenant
