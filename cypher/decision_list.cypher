// name: decision_list
// Believed decisions visible in a scope chain, newest first, of $agent (and of session
// $sessionId when given); at most $limit. DERIVED_FROM names the session's episodes.
MATCH (d:Memory {tenant: $tenant})
WHERE d.scope IN $chain AND d:Decision AND d.invalidatedAt IS NULL
  AND ($agent IS NULL OR d.agentId = $agent)
  AND ($sessionId IS NULL OR d.sessionId = $sessionId)
RETURN d {.*, embedding: null, embeddingB: null} AS node
ORDER BY d.createdAt DESC, d.id
LIMIT $limit
