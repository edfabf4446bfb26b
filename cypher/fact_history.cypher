// name: fact_history
// Every fact about $subject (and $predicate, if given) visible in a scope chain, believed
// or not, oldest valid time first, each with the records that superseded it.
MATCH (m:Fact {tenant: $tenant, subject: $subject})
WHERE m.scope IN $chain AND ($predicate IS NULL OR m.predicate = $predicate)
OPTIONAL MATCH (newer:Memory {tenant: $tenant})-[s:SUPERSEDES]->(m)
WITH m, collect(s {by: newer.id, .reason, .at, .note}) AS supersededBy
RETURN m {.*, embedding: null} AS node, supersededBy
ORDER BY coalesce(m.validFrom, m.validTo), m.createdAt, m.id
