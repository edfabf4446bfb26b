// fragment: vector_pool
// Cypher 25 (Neo4j 2026): the index is searched within the tenant, so the pool is the
// tenant's memories (the sum of its scopes' counters), as __node__. The path test lets
// the (tenant, path) index serve the lookup, as the hint says.
MATCH (s:Scope {tenant: $tenant})
USING INDEX s:Scope(tenant, path)
WHERE s.path IS NOT NULL
RETURN sum(coalesce(s.memories, 0)) AS __node__
