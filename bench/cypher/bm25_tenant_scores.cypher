// name: bm25_tenant_scores
// The raw BM25 scores of one tenant's full-text hits for the Lucene query recall sends
// (narrowed to the tenant's scope keys): what the shared index statistics shape.
CALL db.index.fulltext.queryNodes('memory_text', $lucene) YIELD node, score
WHERE node.tenant = $tenant
RETURN node.text AS text, score
ORDER BY score DESC
