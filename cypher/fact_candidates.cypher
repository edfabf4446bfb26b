// name: fact_candidates
// Contradiction candidates for new facts, scoped as contract §7 asks: only believed, active
// facts about the same subject, visible in $chain, valid now ($asOf = $validAt = the write's
// time) and current in that view (fragment fact_current, $automatic: a single-valued fact
// another scope of the chain outranks is no value the new fact could restate), each with its
// scope: the write retires only facts of its own scope
// (docs/design-notes.md#scope-chain-facts). For each new fact ($rows:
// [{i, subject, embedding, predicate, object, textKey, flagged}]) returns, with their Neo4j
// cosine similarity to it, only the stored facts the rules can act on: the same statement
// (text key), the same predicate and value, the same predicate when the new fact says it
// corrects or replaces one ($flagged), or a similarity of at least $floor (the judge's grey
// band and above); at most $limit a fact, exact matches first, then the most similar. A
// subject with thousands of facts so costs each new fact $limit rows, not thousands.
UNWIND $rows AS row
CALL (row) {
  MATCH (o:Fact {tenant: $tenant, subject: row.subject})
  WHERE o.scope IN $chain AND o.invalidatedAt IS NULL AND o.status = 'active'
    AND (o.validTo IS NULL OR o.validTo > $validAt) AND {{fact_current(o)}}
  WITH o, CASE WHEN {{vector(o)}} IS NULL THEN 0.0
               ELSE vector.similarity.cosine({{vector(o)}}, row.embedding) END AS similarity,
       o.textKey = row.textKey
         OR (o.predicate = row.predicate AND row.object IS NOT NULL AND toLower(o.object) = toLower(row.object)) AS exact
  WHERE exact OR similarity >= $floor OR (row.flagged AND o.predicate = row.predicate)
  RETURN o, similarity
  ORDER BY CASE WHEN exact THEN 0 ELSE 1 END, similarity DESC, o.id
  LIMIT $limit
}
RETURN row.i AS i, o.id AS id, o.predicate AS predicate, o.object AS object,
       o.singleValued AS singleValued, o.provenance AS provenance, o.textKey AS textKey,
       o.text AS text, o.scope AS scope, similarity
ORDER BY i, similarity DESC, id
