// name: session_messages
// The newest $limit believed episodes of one conversation ($sessionId) visible in a scope
// chain, newest first (the caller reverses them into reading order). Episodes are ordered by
// when they happened, then when they were written, then id, so a batch keeps its order.
MATCH (m:Episode {tenant: $tenant, sessionId: $sessionId})
WHERE m.scope IN $chain AND m.invalidatedAt IS NULL
RETURN m {.*, embedding: null, embeddingB: null} AS node
ORDER BY m.occurredAt DESC, m.createdAt DESC, m.id DESC
LIMIT $limit
