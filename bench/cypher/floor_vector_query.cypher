// name: floor_vector_query
// The physical floor of recall: one bare vector index query, nothing else.
CALL db.index.vector.queryNodes('memory_embedding', $k, $vector) YIELD node, score
RETURN node.id AS id, score
