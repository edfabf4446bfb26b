// name: procedure_twin
// The believed procedure visible in $chain that a newly induced one repeats: the same
// normalised steps ($stepsKey), or the same number of steps and a Neo4j cosine similarity
// of at least $threshold to $embedding. Rejected procedures are not merged into.
MATCH (p:Procedure {tenant: $tenant})
WHERE p.scope IN $chain AND p.invalidatedAt IS NULL AND p.status <> 'rejected'
WITH p, CASE WHEN $embedding IS NULL OR p.embedding IS NULL THEN null
             ELSE vector.similarity.cosine(p.embedding, $embedding) END AS similarity
WHERE p.stepsKey = $stepsKey OR (size(p.steps) = $stepCount AND similarity >= $threshold)
RETURN p {.*, embedding: null, cites: [(p)-[:CITES]->(c:Memory {tenant: $tenant}) | c.id]} AS node
ORDER BY p.stepsKey = $stepsKey DESC, similarity DESC, p.createdAt DESC, p.id
LIMIT 1
