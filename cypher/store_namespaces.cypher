// name: store_namespaces
// The scopes holding LangGraph store items current at $now, at $prefix or below it ($prefix null:
// the whole tenant), in path order.
MATCH (m:Fact {tenant: $tenant, predicate: 'langgraph_item'})
WHERE ($prefix IS NULL OR m.scope = $prefix OR m.scope STARTS WITH $prefix + '/')
  AND m.invalidatedAt IS NULL AND (m.validTo IS NULL OR m.validTo > $now)
RETURN DISTINCT m.scope AS scope
ORDER BY scope
