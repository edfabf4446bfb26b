// name: import_nodes
// Recreates exported memories in this tenant with their ids and every stored property,
// timestamps included (the caller has checked them and computed the derived keys again),
// the kind label named by row.kind (one of the fixed labels below), and IN_SCOPE to their
// scope (which scope_ensure created, counting them, in the same transaction). $rows: [{kind, props}]; props has no tenant.
// Returns how many nodes were created.
UNWIND $rows AS row
CREATE (m:Memory)
SET m = row.props, m.tenant = $tenant, m.kind = row.kind
{{vector_placed(m)}}
FOREACH (_ IN CASE WHEN row.kind = 'fact' THEN [1] ELSE [] END | SET m:Fact)
FOREACH (_ IN CASE WHEN row.kind = 'episode' THEN [1] ELSE [] END | SET m:Episode)
FOREACH (_ IN CASE WHEN row.kind = 'entity' THEN [1] ELSE [] END | SET m:Entity)
FOREACH (_ IN CASE WHEN row.kind = 'insight' THEN [1] ELSE [] END | SET m:Insight)
FOREACH (_ IN CASE WHEN row.kind = 'procedure' THEN [1] ELSE [] END | SET m:Procedure)
FOREACH (_ IN CASE WHEN row.kind = 'correction' THEN [1] ELSE [] END | SET m:Correction)
FOREACH (_ IN CASE WHEN row.kind = 'decision' THEN [1] ELSE [] END | SET m:Decision)
FOREACH (_ IN CASE WHEN row.kind = 'note' THEN [1] ELSE [] END | SET m:Note)
FOREACH (_ IN CASE WHEN row.kind = 'summary' THEN [1] ELSE [] END | SET m:Summary)
FOREACH (_ IN CASE WHEN row.kind = 'chunk' THEN [1] ELSE [] END | SET m:Chunk)
WITH m
CALL (m) {
  // a long episode's window is not a memory of its scope (no IN_SCOPE, not counted)
  WITH m WHERE NOT m:Chunk
  MATCH (scope:Scope {tenant: $tenant, path: m.scope})
  CREATE (m)-[:IN_SCOPE]->(scope)
}
RETURN count(*) AS created
