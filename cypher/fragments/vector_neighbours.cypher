// fragment: vector_neighbours
// The vector index's nearest memories to $vector that the scopes $chain of $tenant can see,
// bound to __node__, with `semantic`, their exact cosine (the including statement has
// `pool` and `inScope` in scope). Neo4j 5's index cannot be filtered: any tenant's
// memories come back, so it is asked for $semanticFetch x $overFetch neighbours times
// pool / inScope (at most $maxVectorFetch), the visible ones are kept, and only those are
// scored with the stored vector (the index may be quantized).
WITH toInteger(ceil($semanticFetch * $overFetch * (1.0 * pool / CASE WHEN inScope > 0 THEN inScope ELSE 1 END))) AS wanted
CALL db.index.vector.queryNodes('{{vector_index}}',
    CASE WHEN wanted > $maxVectorFetch THEN $maxVectorFetch ELSE wanted END, $vector)
  YIELD node AS __node__
WITH __node__
WHERE __node__.tenant = $tenant AND __node__.scope IN $chain
WITH __node__, vector.similarity.cosine({{vector(__node__)}}, $vector) AS semantic
