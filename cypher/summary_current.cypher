// name: summary_current
// Locks the scope node (so two summarize calls on one session take turns), then returns
// the believed summaries of $sessionId stored in $scope with the ids they cite, oldest
// coverage first.
MATCH (s:Scope {tenant: $tenant, path: $scope})
SET s._lock = true
REMOVE s._lock
WITH s
MATCH (n:Summary {tenant: $tenant, scope: $scope, sessionId: $sessionId})
WHERE n.invalidatedAt IS NULL
RETURN n {.*, embedding: null, embeddingB: null, cites: [(n)-[:CITES]->(c:Memory {tenant: $tenant}) | c.id]} AS node
ORDER BY n.coversFrom, n.createdAt, n.id
