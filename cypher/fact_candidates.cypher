// name: fact_candidates
// Contradiction candidates for new facts, scoped as contract §7 asks: only believed, active
// facts about the same subject, visible in $chain and valid at $now. For each new fact ($rows: [{i, subject,
// embedding}]) returns those facts with their Neo4j cosine similarity to it.
UNWIND $rows AS row
MATCH (o:Fact {tenant: $tenant, subject: row.subject})
WHERE o.scope IN $chain AND o.invalidatedAt IS NULL AND o.status = 'active'
  AND (o.validTo IS NULL OR o.validTo > $now)
RETURN row.i AS i, o.id AS id, o.predicate AS predicate, o.object AS object,
       o.singleValued AS singleValued, o.provenance AS provenance, o.textKey AS textKey,
       o.text AS text,
       CASE WHEN o.embedding IS NULL THEN 0.0
            ELSE vector.similarity.cosine(o.embedding, row.embedding) END AS similarity
ORDER BY i, similarity DESC, id
