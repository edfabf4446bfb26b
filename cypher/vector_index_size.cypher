// name: vector_index_size
// How many memories have an embedding (what rebuilding the vector index must index), for
// setup()'s line before a rebuild.
MATCH (m:Memory)
WHERE {{vector(m)}} IS NOT NULL
RETURN count(m) AS memories
