// fragment: vector_placed
// After `SET __node__ = props` in a store whose vectors are in slot b: the props' embedding
// and storeVectors moved to slot b's properties.
SET __node__.embeddingB = __node__.embedding, __node__.storeVectorsB = __node__.storeVectors
REMOVE __node__.embedding, __node__.storeVectors
