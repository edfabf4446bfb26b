// name: recall_part_lexical
// recall_lexical alone, what recall.cypher hands it taken from parameters.
CYPHER replan=force
WITH $inScope AS inScope, $total AS total, $spoken AS spoken
CALL (inScope, total, spoken) {
  {{recall_lexical}}
}
RETURN lexicalHits, lexicalOpen, lexicalForeign, lexicalSaturated
