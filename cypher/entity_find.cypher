// name: entity_find
// Entity resolution by name: the believed entity of $type visible in a scope chain whose
// normalised name or one of whose aliases equals one of $keys; the nearest scope wins.
MATCH (e:Entity {tenant: $tenant})
WHERE e.scope IN $chain AND e.type = $type AND e.invalidatedAt IS NULL
  AND (e.nameKey IN $keys OR any(k IN $keys WHERE k IN e.aliasKeys))
RETURN e {.*, embedding: null} AS node
ORDER BY size(e.scope) DESC, e.createdAt
LIMIT 1
