// name: import_nodes
// Recreates exported memories in this tenant with their ids and every stored property,
// timestamps included (the caller has checked them and computed the derived keys again),
// the kind's label from $labels (the registry of kinds, _base/kinds.py: the caller has
// refused a kind it does not hold), and IN_SCOPE to their scope (which scope_ensure created,
// counting them, in the same transaction). $rows: [{kind, props}]; props has no tenant.
// Returns how many nodes were created.
UNWIND $rows AS row
CREATE (m:Memory)
SET m = row.props, m.tenant = $tenant, m.kind = row.kind
{{vector_placed(m)}}
SET m:$($labels[row.kind])
WITH m
CALL (m) {
  // a long episode's window is not a memory of its scope (no IN_SCOPE, not counted)
  WITH m WHERE NOT m:Chunk
  MATCH (scope:Scope {tenant: $tenant, path: m.scope})
  CREATE (m)-[:IN_SCOPE]->(scope)
}
RETURN count(*) AS created
