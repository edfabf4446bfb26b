// name: insight_create
// Writes one :Insight in its scope with a CITES edge to each of its evidence records (ids
// already checked by the caller: existing, visible, believed facts and episodes).
// $props holds the node's properties (no tenant); $cites the evidence ids.
CREATE (i:Memory:Insight)
SET i = $props, i.tenant = $tenant, i.kind = 'insight', i.createdAt = $now
{{vector_placed(i)}}
WITH i
MATCH (scope:Scope {tenant: $tenant, path: i.scope})
CREATE (i)-[:IN_SCOPE]->(scope)
WITH i
CALL (i) {
  UNWIND $cites AS citedId
  MATCH (e:Memory {tenant: $tenant, id: citedId})
  CREATE (i)-[:CITES]->(e)
}
RETURN i {.*, embedding: null, embeddingB: null, cites: [(i)-[:CITES]->(c:Memory {tenant: $tenant}) | c.id]} AS node
