// name: procedure_create
// Writes one :Procedure in its scope with a CITES edge to each episode it was induced
// from ($cites; ids checked by the caller).
CREATE (p:Memory:Procedure)
SET p = $props, p.tenant = $tenant, p.kind = 'procedure', p.createdAt = $now
{{vector_placed(p)}}
WITH p
MATCH (scope:Scope {tenant: $tenant, path: p.scope})
CREATE (p)-[:IN_SCOPE]->(scope)
WITH p
CALL (p) {
  UNWIND $cites AS citedId
  MATCH (e:Episode {tenant: $tenant, id: citedId})
  CREATE (p)-[:CITES]->(e)
}
RETURN p {.*, embedding: null, embeddingB: null, cites: [(p)-[:CITES]->(c:Memory {tenant: $tenant}) | c.id]} AS node
