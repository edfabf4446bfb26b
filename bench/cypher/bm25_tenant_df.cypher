// name: bm25_tenant_df
// How many of one tenant's memories hold a word: the document frequency a per-tenant BM25
// would need for each query word ($lucene: the word, narrowed to the tenant's scope keys).
CALL db.index.fulltext.queryNodes('memory_text', $lucene) YIELD node
RETURN count(node) AS df
