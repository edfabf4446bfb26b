// name: schema_vector_info
// graphmem's vector indexes (memory_embedding over slot a's vectors, memory_embedding_b over
// slot b's: _base/layout.py): their name, state, how far populated, dimension and properties
// (the vector, and on Neo4j 2026 the tenant it filters by). The active slot's is what
// dimension checks and the recall template's choice read; the other one exists while a
// re-embedding fills it.
SHOW VECTOR INDEXES YIELD name, state, populationPercent, options, properties
WHERE name IN ['memory_embedding', 'memory_embedding_b']
RETURN name, state, populationPercent AS population, options.indexConfig['vector.dimensions'] AS dimensions,
       properties
