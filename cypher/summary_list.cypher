// name: summary_list
// The summaries of $sessionId stored in $scope (believed ones, or every version when
// $includeFolded), with the ids they cite and what superseded them, oldest coverage first.
MATCH (n:Summary {tenant: $tenant, scope: $scope, sessionId: $sessionId})
WHERE $includeFolded OR n.invalidatedAt IS NULL
OPTIONAL MATCH (newer:Memory {tenant: $tenant})-[s:SUPERSEDES]->(n)
WITH n, collect(s {by: newer.id, .reason, .at, .note}) AS supersededBy
RETURN n {.*, embedding: null, embeddingB: null, cites: [(n)-[:CITES]->(c:Memory {tenant: $tenant}) | c.id]} AS node, supersededBy
ORDER BY n.coversFrom, n.createdAt, n.id
