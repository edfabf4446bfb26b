// name: entity_promote
// Moves entity $id up to the ancestor scope $scope, whose :Scope node exists: its scope,
// lexKey and IN_SCOPE edge change, the old scope's memories counter drops by one (the
// caller's scope_ensure counts it in its new scope) and promotedAt says when. The old path
// is not kept: erasing that scope must leave no trace of it. Its id, edges and the facts
// about it are unchanged.
MATCH (e:Entity {tenant: $tenant, id: $id})-[old:IN_SCOPE]->(from:Scope)
MATCH (to:Scope {tenant: $tenant, path: $scope})
SET from.memories = from.memories - 1
DELETE old
CREATE (e)-[:IN_SCOPE]->(to)
SET e.scope = $scope, e.lexKey = $lexKey, e.promotedAt = $now
RETURN e {.*, embedding: null, embeddingB: null} AS node
