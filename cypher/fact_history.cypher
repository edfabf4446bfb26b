// name: fact_history
// Every fact about $subject (an id, a literal or an entity's name or alias: the three
// lookups below, each through an index) and $predicate, if given, visible in a scope chain,
// believed or not, oldest valid time first, each with the records that superseded it.
CALL () {
  MATCH (m:Fact {tenant: $tenant, subject: $subject})
  USING INDEX m:Fact(tenant, subject, predicate)
  WHERE m.predicate IS NOT NULL
  RETURN m
  UNION
  MATCH (m:Fact {tenant: $tenant, subjectKey: $subjectKey})
  RETURN m
  UNION
  MATCH (named:Entity {tenant: $tenant})
  WHERE named.scope IN $chain
    AND $subjectKey IN coalesce(named.foldKeys, [named.nameKey] + coalesce(named.aliasKeys, []))
  MATCH (m:Fact)-[:ABOUT {role: 'subject'}]->(named)
  RETURN m
}
WITH m
WHERE m.scope IN $chain AND ($predicate IS NULL OR m.predicate = $predicate)
OPTIONAL MATCH (newer:Memory {tenant: $tenant})-[s:SUPERSEDES]->(m)
WITH m, collect(s {by: newer.id, .reason, .at, .note}) AS supersededBy
RETURN m {.*, embedding: null, embeddingB: null} AS node, supersededBy
ORDER BY coalesce(m.validFrom, m.validTo), m.createdAt, m.id
