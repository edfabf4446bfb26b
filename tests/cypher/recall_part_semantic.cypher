// name: recall_part_semantic
// recall_semantic alone: the pool the vector index searches counted as recall.cypher counts
// it, the scopes' size and the choice of an exact scan taken from parameters.
CYPHER replan=force
CALL () {
  MATCH (any_memory:Memory)
  RETURN count(any_memory) AS total
}
CALL (total) {
  {{vector_pool(pool)}}
}
WITH $inScope AS inScope, pool, $exact AS exact
CALL (inScope, pool, exact) {
  {{recall_semantic}}
}
RETURN semanticHits, semanticPool
