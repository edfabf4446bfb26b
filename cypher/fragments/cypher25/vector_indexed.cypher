// fragment: vector_indexed
// Cypher 25 (Neo4j 2026): the embedding, with the tenant as an additional property the
// search can filter on inside the index.
ON {{vector(__node__)}} WITH [__node__.tenant]
