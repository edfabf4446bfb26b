// name: insight_prune
// Invalidates (reason 'pruned') the believed insights stored at $scope or below whose
// salience is <= 0 or that no believed record supports any more (every cited record was
// invalidated or erased). Returns each pruned id and whether it had lost its support.
MATCH (i:Insight {tenant: $tenant})
WHERE (i.scope = $scope OR i.scope STARTS WITH $prefix) AND i.invalidatedAt IS NULL
OPTIONAL MATCH (i)-[:CITES]->(e:Memory {tenant: $tenant})
WHERE e.invalidatedAt IS NULL
WITH i, count(e) AS support
WHERE i.salience <= 0 OR support = 0
SET i.invalidatedAt = $now, i.invalidationReason = 'pruned'
RETURN i.id AS id, support = 0 AS unsupported
ORDER BY id
