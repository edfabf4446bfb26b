// name: scope_ensure
// Creates the :Scope nodes of a tenant for the given paths, links each to its parent with
// CHILD_OF (idempotent), and adds n to each scope's memories counter (the number of
// memories stored directly in it; recall uses it to choose its search strategy).
// $scopes: [{path, parent, name, n}], parents listed before children.
UNWIND $scopes AS s
MERGE (node:Scope {tenant: $tenant, path: s.path})
  ON CREATE SET node.name = s.name, node.memories = 0
WITH node, s
CALL (node, s) {
  WITH node, s
  WHERE s.n > 0
  SET node._lock = true
  SET node.memories = coalesce(node.memories, 0) + s.n
  REMOVE node._lock
}
WITH node, s
WHERE s.parent IS NOT NULL
MATCH (parent:Scope {tenant: $tenant, path: s.parent})
MERGE (node)-[:CHILD_OF]->(parent)
