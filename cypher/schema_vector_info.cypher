// name: schema_vector_info
// The vector index's name and dimension, if it exists (dimension checks).
SHOW VECTOR INDEXES YIELD name, options
WHERE name = 'memory_embedding'
RETURN name, options.indexConfig['vector.dimensions'] AS dimensions
