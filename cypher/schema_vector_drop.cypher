// name: schema_vector_drop
// Drops the vector index, for setup() to make it again with the tenant as a filter property
// (an index made by an older graphmem or server, now on Neo4j 2026).
DROP INDEX {{vector_index}} IF EXISTS
