// name: note_list
// The notes of one $owner stored in $scope (of one $label when given) that the memory
// believed at $asOf, ordered by label, then oldest first.
MATCH (n:Note {tenant: $tenant, scope: $scope, owner: $owner})
WHERE ($label IS NULL OR n.label = $label)
  AND n.createdAt <= $asOf AND (n.invalidatedAt IS NULL OR n.invalidatedAt > $asOf)
RETURN n {.*, embedding: null, embeddingB: null} AS node
ORDER BY n.label, n.createdAt, n.id
