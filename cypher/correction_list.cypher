// name: correction_list
// Believed corrections visible in a scope chain, newest first, optionally only those of
// $agent, about $entityKey, recorded at or after $since, or with an original input
// ($withInput); at most $limit.
MATCH (c:Memory {tenant: $tenant})
WHERE c.scope IN $chain AND c:Correction AND c.invalidatedAt IS NULL
  AND ($agent IS NULL OR c.agentId = $agent)
  AND ($entityKey IS NULL OR c.entityKey = $entityKey)
  AND ($since IS NULL OR c.createdAt >= $since)
  AND (NOT $withInput OR c.originalInput IS NOT NULL)
RETURN c {.*, embedding: null, embeddingB: null} AS node
ORDER BY c.createdAt DESC, c.id
LIMIT $limit
