// name: store_search
// LangGraph store items current at $now stored at $prefix or below it ($prefix null: the whole
// tenant), with the cosine similarity of their embedding to $vector (null when either is
// missing) as Neo4j reports it, (1 + cos) / 2. An item with several indexed texts keeps one
// vector per text end to end in storeVectors and scores as its best text. Best first, then
// newest; at most $limit.
MATCH (m:Fact {tenant: $tenant, predicate: 'langgraph_item'})
WHERE ($prefix IS NULL OR m.scope = $prefix OR m.scope STARTS WITH $prefix + '/')
  AND m.invalidatedAt IS NULL AND (m.validTo IS NULL OR m.validTo > $now)
WITH m, CASE WHEN $vector IS NULL THEN null
             WHEN {{store_vectors(m)}} IS NOT NULL THEN
               reduce(best = 0.0, s IN [i IN range(0, size({{store_vectors(m)}}) / size($vector) - 1) |
                        vector.similarity.cosine({{store_vectors(m)}}[i * size($vector) .. (i + 1) * size($vector)], $vector)] |
                      CASE WHEN s > best THEN s ELSE best END)
             WHEN {{vector(m)}} IS NULL THEN null
             ELSE vector.similarity.cosine({{vector(m)}}, $vector) END AS similarity
RETURN m.id AS id, m.scope AS scope, m.storeKey AS key, m.valueJson AS value, m.storeTtl AS ttl,
       m.storeCreatedAt AS created, m.createdAt AS updated, similarity
ORDER BY coalesce(similarity, -1.0) DESC, m.createdAt DESC, m.scope, m.storeKey
LIMIT $limit
