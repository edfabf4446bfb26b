// name: fact_history
// Every fact about $subject (an id, a literal or an entity's name or alias: fragment
// subject_match) and $predicate, if given, visible in a scope chain, believed or not,
// oldest valid time first, each with the records that superseded it.
MATCH (m:Memory {tenant: $tenant})
WHERE m.scope IN $chain AND m:Fact AND ($predicate IS NULL OR m.predicate = $predicate)
  AND {{subject_match(m)}}
OPTIONAL MATCH (newer:Memory {tenant: $tenant})-[s:SUPERSEDES]->(m)
WITH m, collect(s {by: newer.id, .reason, .at, .note}) AS supersededBy
RETURN m {.*, embedding: null} AS node, supersededBy
ORDER BY coalesce(m.validFrom, m.validTo), m.createdAt, m.id
