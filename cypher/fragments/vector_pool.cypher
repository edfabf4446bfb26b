// fragment: vector_pool
// How many memories the vector index searches among for this tenant, as __node__ (the
// including statement has `total`, every memory of the database, in scope): on Neo4j 5
// the index cannot be filtered, so every memory of the database.
RETURN total AS __node__
