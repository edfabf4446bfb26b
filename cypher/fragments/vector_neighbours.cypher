// fragment: vector_neighbours
// The vector index's nearest memories to $vector, bound to __node__ (the including
// statement has `pool` and `inScope` in scope). Neo4j 5's index cannot be filtered: any
// tenant's memories come back, so it is asked for $semanticFetch x $overFetch neighbours
// times pool / inScope (at most $maxVectorFetch), and the including statement keeps the
// visible ones.
WITH toInteger(ceil($semanticFetch * $overFetch * (1.0 * pool / CASE WHEN inScope > 0 THEN inScope ELSE 1 END))) AS wanted
CALL db.index.vector.queryNodes('memory_embedding',
    CASE WHEN wanted > $maxVectorFetch THEN $maxVectorFetch ELSE wanted END, $vector)
  YIELD node AS __node__
