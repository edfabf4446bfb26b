// name: entity_forgotten
// Which of the normalised names or aliases $keys belong to an invalidated entity of $type
// that extraction must not recreate: one forgotten in the scope chain ($chain) or below
// $scope ($prefix), or any invalidated one stored exactly at $scope (its name stays taken:
// docs/design-notes.md#forgotten-entity-name).
MATCH (e:Entity {tenant: $tenant, type: $type})
WHERE e.invalidatedAt IS NOT NULL
  AND (e.nameKey IN $keys OR any(k IN $keys WHERE k IN e.aliasKeys))
  AND (e.scope = $scope
       OR (e.invalidationReason = 'forgotten' AND (e.scope IN $chain OR e.scope STARTS WITH $prefix)))
RETURN e.nameKey AS key
LIMIT 1
