// name: floor_hybrid_query
// The floor of any hybrid recall: the two bare index calls it cannot avoid (top $vectorK
// of the vector index, top $textK of the full-text index for the same Lucene query recall
// sends), in one query, ids only, nothing else. With 10 and 10, the hybrid floor; with the
// numbers of candidates recall itself asks for, the candidate floor.
CALL () {
  CALL db.index.vector.queryNodes('memory_embedding', $vectorK, $vector) YIELD node, score
  RETURN collect(node.id) AS semantic
}
CALL () {
  CALL db.index.fulltext.queryNodes('memory_text', $lucene, {limit: $textK}) YIELD node, score
  RETURN collect(node.id) AS lexical
}
RETURN semantic, lexical
