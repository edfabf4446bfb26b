// name: entity_similar
// Entity resolution by embedding: the believed entity of $type visible in $chain whose
// name embedding is most similar to $embedding, if its Neo4j cosine similarity
// ((1 + cos) / 2) is at least $threshold. An exact scan over the visible entities of one
// type (entities are few next to facts and episodes).
UNWIND $chain AS path
MATCH (e:Memory {tenant: $tenant, scope: path})
WHERE e:Entity AND e.type = $type AND e.invalidatedAt IS NULL AND {{vector(e)}} IS NOT NULL
WITH e, vector.similarity.cosine({{vector(e)}}, $embedding) AS similarity
WHERE similarity >= $threshold
RETURN e {.*, embedding: null, embeddingB: null} AS node, similarity
ORDER BY similarity DESC, size(e.scope) DESC, e.id
LIMIT 1
