// name: correction_stats
// How many believed corrections visible in a scope chain (of $agent, since $since when
// given) each (entity key, field) pair received.
MATCH (c:Memory {tenant: $tenant})
WHERE c.scope IN $chain AND c:Correction AND c.invalidatedAt IS NULL
  AND ($agent IS NULL OR c.agentId = $agent)
  AND ($since IS NULL OR c.createdAt >= $since)
RETURN c.entityKey AS entityKey, c.field AS field, count(*) AS n
ORDER BY n DESC, entityKey, field
