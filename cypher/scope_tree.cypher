// name: scope_tree
// Every scope of a tenant with its parent path and how many memories live directly in it
// (the counter that writes and erases keep; recall reads it).
MATCH (s:Scope {tenant: $tenant})
OPTIONAL MATCH (s)-[:CHILD_OF]->(p:Scope {tenant: $tenant})
RETURN s.path AS path, p.path AS parent, coalesce(s.memories, 0) AS memories
ORDER BY path
