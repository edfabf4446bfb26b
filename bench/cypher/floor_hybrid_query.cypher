// name: floor_hybrid_query
// The floor of any hybrid recall: the two bare index calls it cannot avoid (top $k of the
// vector index, top $k of the full-text index for the same Lucene query recall sends), in
// one query, nothing else.
CALL () {
  CALL db.index.vector.queryNodes('memory_embedding', $k, $vector) YIELD node, score
  RETURN collect(node.id) AS semantic
}
CALL () {
  CALL db.index.fulltext.queryNodes('memory_text', $lucene, {limit: $k}) YIELD node, score
  RETURN collect(node.id) AS lexical
}
RETURN semantic, lexical
