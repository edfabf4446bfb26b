// name: scope_ensure
// Creates the :Scope nodes of a tenant for the given paths and links each to its parent
// with CHILD_OF (idempotent). $scopes: [{path, parent, name}], parents listed before children.
UNWIND $scopes AS s
MERGE (node:Scope {tenant: $tenant, path: s.path})
  ON CREATE SET node.name = s.name
WITH node, s
WHERE s.parent IS NOT NULL
MATCH (parent:Scope {tenant: $tenant, path: s.parent})
MERGE (node)-[:CHILD_OF]->(parent)
