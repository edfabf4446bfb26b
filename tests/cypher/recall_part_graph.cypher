// name: recall_part_graph
// recall_graph alone: the seeds found as recall_seeds finds them, the pool from a parameter.
CYPHER replan=force
CALL () {
  {{recall_seeds}}
}
WITH seeds, $semanticPool AS semanticPool
CALL (seeds, semanticPool) {
  {{recall_graph}}
}
RETURN graphHits
