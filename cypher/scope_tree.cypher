// name: scope_tree
// Every scope of a tenant with its parent path and how many memories live in it.
MATCH (s:Scope {tenant: $tenant})
OPTIONAL MATCH (s)-[:CHILD_OF]->(p:Scope {tenant: $tenant})
RETURN s.path AS path, p.path AS parent, COUNT { (:Memory {tenant: $tenant})-[:IN_SCOPE]->(s) } AS memories
ORDER BY path
