// name: recall_part_seeds
// recall_seeds alone.
CYPHER replan=force
CALL () {
  {{recall_seeds}}
}
RETURN seeds
