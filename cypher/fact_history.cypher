// name: fact_history
// Every fact about $subject (and $predicate, if given) visible in a scope chain, believed
// or not, oldest valid time first, each with the records that superseded it. (A fact with
// a subject always has a predicate: saying so lets the (tenant, subject, predicate) index
// serve the lookup; without it Neo4j scanned every :Fact, 100 ms at 50k memories.)
MATCH (m:Fact {tenant: $tenant, subject: $subject})
USING INDEX m:Fact(tenant, subject, predicate)
WHERE m.predicate IS NOT NULL AND m.scope IN $chain AND ($predicate IS NULL OR m.predicate = $predicate)
OPTIONAL MATCH (newer:Memory {tenant: $tenant})-[s:SUPERSEDES]->(m)
WITH m, collect(s {by: newer.id, .reason, .at, .note}) AS supersededBy
RETURN m {.*, embedding: null} AS node, supersededBy
ORDER BY m.validFrom, m.createdAt, m.id
