// name: schema_vector
// creates: {{vector_index}}
// Vector index over memory embeddings; the dimension comes from the configured embedder.
// On Cypher 25 (schema_vector:cypher25, Neo4j 2026) the index also carries the tenant, so
// recall searches within one tenant inside the index (fragment vector_indexed).
CREATE VECTOR INDEX {{vector_index}} IF NOT EXISTS FOR (n:Memory) {{vector_indexed(n)}}
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}}
