// name: schema_vector
// Vector index over memory embeddings; the dimension comes from the configured embedder.
// Quantization is off, so the index's scores are exact cosine similarities and recall need
// not re-read candidate embeddings to re-score them.
CREATE VECTOR INDEX memory_embedding IF NOT EXISTS FOR (n:Memory) ON n.embedding
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine',
                       `vector.quantization.enabled`: false}}
