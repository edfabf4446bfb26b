// name: floor_indexed_vector
// The indexed floor's vector index, as memory_embedding ($dimensions, cosine).
CREATE VECTOR INDEX floor_embedding IF NOT EXISTS FOR (n:FloorIndexed) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}}
