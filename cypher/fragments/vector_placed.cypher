// fragment: vector_placed
// After `SET __node__ = props`: the vectors the props carry (embedding, storeVectors) moved
// to the active slot's properties. In slot a they are there already, so this is a clause
// that does nothing (fragments/b/ moves them).
FOREACH (_ IN [] | REMOVE __node__.embeddingB, __node__.storeVectorsB)
