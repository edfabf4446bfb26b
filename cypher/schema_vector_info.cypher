// name: schema_vector_info
// The vector index's name, dimension and properties (the embedding, and on Neo4j 2026 the
// tenant it filters by), if it exists: dimension checks and the recall template's choice.
SHOW VECTOR INDEXES YIELD name, options, properties
WHERE name = 'memory_embedding'
RETURN name, options.indexConfig['vector.dimensions'] AS dimensions, properties
