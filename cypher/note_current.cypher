// name: note_current
// Locks the scope node (so concurrent edits of one scope's notes take turns and the cap
// check below stays true until the edit commits), then returns the current notes of one
// $owner and $label stored in $scope, oldest first.
MATCH (s:Scope {tenant: $tenant, path: $scope})
SET s._lock = true
REMOVE s._lock
WITH s
MATCH (n:Note {tenant: $tenant, scope: $scope, owner: $owner, label: $label})
WHERE n.invalidatedAt IS NULL
RETURN n {.*, embedding: null, embeddingB: null} AS node
ORDER BY n.createdAt, n.id
