// name: insight_fact_corroboration
// Corroboration by facts (contract §7.3), for the believed insights stored at $scope or
// below: a believed, active fact written after the insight, visible from the insight's
// scope, sharing its evidence (derived from an episode the insight cites or that a cited
// fact was derived from, or about the subject of a cited fact), not cited by it, and agreeing with it (Neo4j cosine
// similarity >= $threshold) raises its salience by one, once: the CORROBORATES edge
// records that it was counted. Returns each insight raised and by how much.
MATCH (i:Insight {tenant: $tenant})
WHERE (i.scope = $scope OR i.scope STARTS WITH $prefix)
  AND i.invalidatedAt IS NULL AND i.status <> 'rejected' AND {{vector(i)}} IS NOT NULL
MATCH (i)-[:CITES]->(e:Memory {tenant: $tenant})
CALL (e) {
  MATCH (f:Fact {tenant: $tenant})-[:DERIVED_FROM]->(e)
  RETURN f
  UNION
  MATCH (e)-[:DERIVED_FROM]->(:Episode {tenant: $tenant})<-[:DERIVED_FROM]-(f:Fact {tenant: $tenant})
  RETURN f
  UNION
  MATCH (f:Fact {tenant: $tenant, subject: e.subject})
  WHERE e.subject IS NOT NULL
  RETURN f
}
WITH DISTINCT i, f
WHERE f.invalidatedAt IS NULL AND f.status = 'active' AND {{vector(f)}} IS NOT NULL
  AND f.createdAt > i.createdAt
  AND (f.scope = i.scope OR i.scope STARTS WITH f.scope + '/')
  AND NOT (i)-[:CITES]->(f) AND NOT (f)-[:CORROBORATES]->(i)
  AND vector.similarity.cosine({{vector(f)}}, {{vector(i)}}) >= $threshold
CREATE (f)-[:CORROBORATES {at: $now}]->(i)
WITH i, count(f) AS points
SET i._lock = true
SET i.salience = coalesce(i.salience, 2) + points, i.lastCorroboratedAt = $now
REMOVE i._lock
RETURN i.id AS id, points
ORDER BY id
