// name: note_history
// Every version of the notes of one $owner stored in $scope (of one $label when given),
// current or not, oldest first, each with the records that superseded it.
MATCH (n:Note {tenant: $tenant, scope: $scope, owner: $owner})
WHERE $label IS NULL OR n.label = $label
OPTIONAL MATCH (newer:Memory {tenant: $tenant})-[s:SUPERSEDES]->(n)
WITH n, collect(s {by: newer.id, .reason, .at, .note}) AS supersededBy
RETURN n {.*, embedding: null, embeddingB: null} AS node, supersededBy
ORDER BY n.createdAt, n.id
