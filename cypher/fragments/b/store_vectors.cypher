// fragment: store_vectors
// A LangGraph store item __node__'s vectors of its several indexed texts in slot b.
__node__.storeVectorsB
