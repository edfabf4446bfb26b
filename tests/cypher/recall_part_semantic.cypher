// name: recall_part_semantic
// recall_semantic alone, what recall.cypher hands it taken from parameters.
CYPHER replan=force
WITH $inScope AS inScope, $pool AS pool, $exact AS exact
CALL (inScope, pool, exact) {
  {{recall_semantic}}
}
RETURN semanticHits, semanticPool
