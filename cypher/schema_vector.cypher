// name: schema_vector
// Vector index over memory embeddings; the dimension comes from the configured embedder.
CREATE VECTOR INDEX memory_embedding IF NOT EXISTS FOR (n:Memory) ON n.embedding
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}}
