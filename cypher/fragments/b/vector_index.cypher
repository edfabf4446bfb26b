// fragment: vector_index
// The name of the vector index over slot b's property.
memory_embedding_b
