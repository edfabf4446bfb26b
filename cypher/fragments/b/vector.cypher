// fragment: vector
// The property holding the vector of a memory __node__ when the store's vectors are in the
// second slot (after a `graphmem reembed` from the first).
__node__.embeddingB
