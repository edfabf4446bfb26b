// name: procedure_twin
// The believed machine-made procedure stored at exactly $scope that a newly induced one
// repeats: the same normalised steps ($stepsKey), or the same number of steps and a Neo4j
// cosine similarity of at least $threshold to $embedding. Procedures people wrote
// (provenance not in $automatic), rejected ones, and those of other scopes (which other
// scopes share) are never merged into.
MATCH (p:Procedure {tenant: $tenant})
WHERE p.scope = $scope AND p.invalidatedAt IS NULL AND p.status <> 'rejected'
  AND p.provenance IN $automatic
WITH p, CASE WHEN $embedding IS NULL OR p.embedding IS NULL THEN null
             ELSE vector.similarity.cosine(p.embedding, $embedding) END AS similarity
WHERE p.stepsKey = $stepsKey OR (size(p.steps) = $stepCount AND similarity >= $threshold)
RETURN p {.*, embedding: null, cites: [(p)-[:CITES]->(c:Memory {tenant: $tenant}) | c.id]} AS node
ORDER BY p.stepsKey = $stepsKey DESC, similarity DESC, p.createdAt DESC, p.id
LIMIT 1
