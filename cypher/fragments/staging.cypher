// fragment: staging
// The property a re-embedding fills with the new embedder's vector of a memory __node__:
// the slot that is not active (here slot b, beside slot a's embedding).
__node__.embeddingB
