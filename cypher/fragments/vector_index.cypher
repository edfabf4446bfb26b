// fragment: vector_index
// The name of the vector index over the active slot's property (slot a).
memory_embedding
