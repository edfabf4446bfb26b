// name: insight_twin
// The insight stored at the new one's scope ($scope) that already states it: it cites
// at least one of the same records ($cites) and has the same normalised text or a cosine
// similarity (Neo4j's (1 + cos) / 2 scale) of at least $threshold to $embedding.
// Believed insights only, of the same owner ($userId, $agentId, $sessionId; null for none);
// rejected ones are returned too, so reflection does not re-propose what a person turned down.
MATCH (i:Insight {tenant: $tenant})-[:CITES]->(e:Memory {tenant: $tenant})
WHERE e.id IN $cites AND i.scope = $scope AND i.invalidatedAt IS NULL
  AND coalesce(i.userId, '') = coalesce($userId, '') AND coalesce(i.agentId, '') = coalesce($agentId, '')
  AND coalesce(i.sessionId, '') = coalesce($sessionId, '')
WITH DISTINCT i
WITH i, CASE WHEN $embedding IS NULL OR {{vector(i)}} IS NULL THEN null
             ELSE vector.similarity.cosine({{vector(i)}}, $embedding) END AS similarity
WHERE i.textKey = $textKey OR similarity >= $threshold
RETURN i.id AS id, i.status AS status, [(i)-[:CITES]->(c:Memory {tenant: $tenant}) | c.id] AS cites
ORDER BY i.textKey = $textKey DESC, similarity DESC, i.id
LIMIT 1
