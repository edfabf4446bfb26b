// name: session_list
// The conversations with believed episodes visible in a scope chain (optionally of one
// $userId): each session id with its first and last episode time and its number of
// episodes, most recently active first.
MATCH (m:Episode {tenant: $tenant})
WHERE m.scope IN $chain AND m.sessionId IS NOT NULL AND m.invalidatedAt IS NULL
  AND ($userId IS NULL OR m.userId = $userId)
WITH m.sessionId AS sessionId, min(m.occurredAt) AS first, max(m.occurredAt) AS last, count(m) AS count
RETURN sessionId, first, last, count
ORDER BY last DESC, sessionId
