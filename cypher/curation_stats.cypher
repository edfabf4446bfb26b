// name: curation_stats
// The memories of the scope subtree ($scope, $prefix = $scope + '/') counted by kind,
// provenance, whether believed, and invalidation reason.
MATCH (m:Memory {tenant: $tenant})
WHERE m.scope = $scope OR m.scope STARTS WITH $prefix
RETURN m.kind AS kind, m.provenance AS provenance, m.invalidatedAt IS NULL AS believed,
       m.invalidationReason AS reason, count(*) AS n
