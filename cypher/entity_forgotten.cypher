// name: entity_forgotten
// Which of the normalised names $keys belong to a forgotten (invalidated) entity of $type
// stored exactly at $scope: such a name stays taken (design note 23), so extraction
// leaves it alone instead of recreating what the user asked to forget.
MATCH (e:Entity {tenant: $tenant, scope: $scope, type: $type})
WHERE e.nameKey IN $keys AND e.invalidatedAt IS NOT NULL
RETURN e.nameKey AS key
