// name: store_search
// LangGraph store items current at $now stored at $prefix or below it ($prefix null: the whole
// tenant), with the cosine similarity of their embedding to $vector (null when either is
// missing) as Neo4j reports it, (1 + cos) / 2. Best first, then newest; at most $limit.
MATCH (m:Fact {tenant: $tenant, predicate: 'langgraph_item'})
WHERE ($prefix IS NULL OR m.scope = $prefix OR m.scope STARTS WITH $prefix + '/')
  AND m.invalidatedAt IS NULL AND (m.validTo IS NULL OR m.validTo > $now)
WITH m, CASE WHEN $vector IS NULL OR m.embedding IS NULL THEN null
             ELSE vector.similarity.cosine(m.embedding, $vector) END AS similarity
RETURN m.id AS id, m.scope AS scope, m.storeKey AS key, m.valueJson AS value, m.storeTtl AS ttl,
       m.storeCreatedAt AS created, m.createdAt AS updated, similarity
ORDER BY coalesce(similarity, -1.0) DESC, m.createdAt DESC, m.scope, m.storeKey
LIMIT $limit
