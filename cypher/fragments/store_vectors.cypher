// fragment: store_vectors
// A LangGraph store item __node__'s vectors of its several indexed texts, end to end, in the
// active slot (slot a).
__node__.storeVectors
