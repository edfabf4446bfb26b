// name: summary_create
// Writes one :Summary in its scope with a CITES edge to each episode it covers ($cites;
// ids read by the caller in the same transaction). $props holds its properties (no tenant).
CREATE (n:Memory:Summary)
SET n = $props, n.tenant = $tenant, n.kind = 'summary', n.createdAt = $now
{{vector_placed(n)}}
WITH n
MATCH (scope:Scope {tenant: $tenant, path: n.scope})
CREATE (n)-[:IN_SCOPE]->(scope)
WITH n
CALL (n) {
  UNWIND $cites AS citedId
  MATCH (e:Episode {tenant: $tenant, id: citedId})
  CREATE (n)-[:CITES]->(e)
}
RETURN n {.*, embedding: null, embeddingB: null, cites: [(n)-[:CITES]->(c:Memory {tenant: $tenant}) | c.id]} AS node
