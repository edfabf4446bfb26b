// name: scope_tree
// The scope tree of a tenant: every :Scope with the CHILD_OF edge to its parent and how
// many memories live directly in it.
// :param tenant => 'default'
MATCH (s:Scope {tenant: $tenant})
OPTIONAL MATCH parent = (s)-[:CHILD_OF]->(:Scope {tenant: $tenant})
RETURN s, parent, coalesce(s.memories, 0) AS memories
ORDER BY s.path
