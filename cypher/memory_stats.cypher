// name: memory_stats
// How many memories a tenant holds per scope and kind (within the scope subtree $scope, or
// the whole tenant when it is null): in all, still believed, invalidated, quarantined.
MATCH (m:Memory {tenant: $tenant})
WHERE $scope IS NULL OR m.scope = $scope OR m.scope STARTS WITH $scope + '/'
RETURN m.scope AS scope, m.kind AS kind, count(*) AS total,
       count(CASE WHEN m.invalidatedAt IS NULL THEN 1 END) AS believed,
       count(m.invalidatedAt) AS invalidated,
       count(CASE WHEN m.status = 'quarantined' THEN 1 END) AS quarantined
ORDER BY scope, kind
