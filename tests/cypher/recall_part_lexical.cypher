// name: recall_part_lexical
// recall_lexical alone: the database's memories counted as recall.cypher counts them, the
// scopes' size and the speakers' name words taken from parameters.
CYPHER replan=force
CALL () {
  MATCH (any_memory:Memory)
  RETURN count(any_memory) AS total
}
WITH $inScope AS inScope, total, $spoken AS spoken
CALL (inScope, total, spoken) {
  {{recall_lexical}}
}
RETURN lexicalHits, lexicalOpen, lexicalForeign, lexicalSaturated
