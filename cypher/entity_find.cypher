// name: entity_find
// Entity resolution by name: the believed entity of $type visible in a scope chain whose
// normalised name or one of whose aliases equals one of $keys; the nearest scope wins.
// Sought through the (tenant, scope, type, nameKey) constraint's index (the hint; every
// entity has a nameKey): the entities of this type in the chain, not every :Entity of the
// database, which the planner chose without it.
MATCH (e:Entity {tenant: $tenant})
USING INDEX e:Entity(tenant, scope, type, nameKey)
WHERE e.scope IN $chain AND e.type = $type AND e.nameKey IS NOT NULL AND e.invalidatedAt IS NULL
  AND (e.nameKey IN $keys OR any(k IN $keys WHERE k IN e.aliasKeys))
RETURN e {.*, embedding: null, embeddingB: null} AS node
ORDER BY size(e.scope) DESC, e.createdAt
LIMIT 1
