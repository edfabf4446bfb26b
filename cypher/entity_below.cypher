// name: entity_below
// The believed entities of $type stored below a scope ($prefix is the scope and a '/')
// whose normalised name is one of $keys, oldest first: what an upsert in that scope
// promotes instead of creating a second entity its descendants would also see. Sought by
// name (the hint): a prefix scan of the scope could cover every entity of a large tree.
MATCH (e:Entity {tenant: $tenant})
USING INDEX e:Entity(tenant, nameKey)
WHERE e.nameKey IN $keys AND e.scope STARTS WITH $prefix AND e.type = $type AND e.invalidatedAt IS NULL
RETURN e {.*, embedding: null, embeddingB: null} AS node
ORDER BY e.createdAt, e.id
