// name: decision_create
// Writes one :Decision in its scope, DERIVED_FROM every episode of its session
// ($sessionId) visible in $chain that happened by $now.
CREATE (d:Memory:Decision)
SET d = $props, d.tenant = $tenant, d.kind = 'decision', d.createdAt = $now
{{vector_placed(d)}}
WITH d
MATCH (scope:Scope {tenant: $tenant, path: d.scope})
CREATE (d)-[:IN_SCOPE]->(scope)
WITH d
CALL (d) {
  UNWIND CASE WHEN $sessionId IS NULL THEN [] ELSE $chain END AS path
  MATCH (e:Memory {tenant: $tenant, scope: path})
  WHERE e:Episode AND e.sessionId = $sessionId AND e.occurredAt <= $now
  CREATE (d)-[:DERIVED_FROM]->(e)
}
RETURN d {.*, embedding: null, embeddingB: null} AS node
