// name: episode_stored
// Believed episodes stored at exactly $scope, of conversation $sessionId and/or that
// happened at or after $since (a null filter matches all), oldest first, at most $limit:
// what extract() sends to a chat model.
MATCH (m:Memory {tenant: $tenant, scope: $scope})
WHERE m:Episode AND m.invalidatedAt IS NULL
  AND ($sessionId IS NULL OR m.sessionId = $sessionId)
  AND ($since IS NULL OR m.occurredAt >= $since)
RETURN m {.*, embedding: null, embeddingB: null} AS node
ORDER BY m.occurredAt, m.id
LIMIT $limit
