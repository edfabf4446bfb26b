// name: correction_create
// Writes one :Correction in its scope, ABOUT the episode of the run it corrects when
// $runId names one (checked by the caller).
CREATE (c:Memory:Correction)
SET c = $props, c.tenant = $tenant, c.kind = 'correction', c.createdAt = $now
{{vector_placed(c)}}
WITH c
MATCH (scope:Scope {tenant: $tenant, path: c.scope})
CREATE (c)-[:IN_SCOPE]->(scope)
WITH c
CALL (c) {
  MATCH (e:Episode {tenant: $tenant, id: $runId})
  CREATE (c)-[:ABOUT {role: 'run'}]->(e)
}
RETURN c {.*, embedding: null, embeddingB: null} AS node
