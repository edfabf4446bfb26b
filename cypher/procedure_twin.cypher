// name: procedure_twin
// The believed machine-made procedure stored at exactly $scope that a newly induced one
// repeats: the same normalised steps ($stepsKey), or the same number of steps and a Neo4j
// cosine similarity of at least $threshold to $embedding. Procedures people wrote
// (provenance not in $automatic), rejected ones, and those of other scopes (which other
// scopes share) are never merged into.
MATCH (p:Procedure {tenant: $tenant})
WHERE p.scope = $scope AND p.invalidatedAt IS NULL AND p.status <> 'rejected'
  AND p.provenance IN $automatic
WITH p, CASE WHEN $embedding IS NULL OR {{vector(p)}} IS NULL THEN null
             ELSE vector.similarity.cosine({{vector(p)}}, $embedding) END AS similarity
WHERE p.stepsKey = $stepsKey OR (size(p.steps) = $stepCount AND similarity >= $threshold)
RETURN p {.*, embedding: null, embeddingB: null, cites: [(p)-[:CITES]->(c:Memory {tenant: $tenant}) | c.id]} AS node
ORDER BY p.stepsKey = $stepsKey DESC, similarity DESC, p.createdAt DESC, p.id
LIMIT 1
