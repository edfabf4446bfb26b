// fragment: recall_graph
// The second half of recall's graph side (the body of `CALL (seeds, semanticPool) { ... }`):
// what the seeds said (SPOKE), are about (ABOUT) or, for a seed that does not speak, are
// named in (MENTIONS), walked from each seed tied to at most $walkLimit records; for a wider
// seed, the records tied to it among the semantic side's semanticPool. Visible in $chain,
// through recall_filter. Returns graphHits: the best $graphFetch by cosine to $vector
// ({m, score}), ties broken by the newest.
  CALL (seeds, semanticPool) {
    UNWIND seeds AS seed
    WITH seed.e AS e, seed.speaks AS speaks
    WHERE seed.degree <= $walkLimit
    MATCH (e)-[link:SPOKE|MENTIONS|ABOUT]-(m:Memory)
    WHERE m.tenant = $tenant AND m.scope IN $chain AND NOT (speaks AND link:MENTIONS) AND {{recall_filter(m)}}
    RETURN m, CASE WHEN $vector IS NOT NULL AND {{vector(m)}} IS NOT NULL
                   THEN vector.similarity.cosine({{vector(m)}}, $vector) END AS semantic
    UNION
    WITH semanticPool, [s IN seeds WHERE s.degree > $walkLimit | s.e] AS wide,
         [s IN seeds WHERE s.degree > $walkLimit AND NOT s.speaks | s.e] AS quiet
    UNWIND CASE WHEN wide = [] THEN [] ELSE semanticPool END AS found
    WITH found.m AS m, found.score AS semantic, wide, quiet
    WHERE EXISTS { (m)-[:SPOKE|ABOUT]-(s:Entity) WHERE s IN wide }
       OR EXISTS { (m)-[:MENTIONS]->(s:Entity) WHERE s IN quiet }
    RETURN m, semantic
  }
  WITH DISTINCT m, semantic
  ORDER BY semantic DESC, coalesce(m.occurredAt, m.createdAt) DESC, m.id
  LIMIT $graphFetch
  RETURN collect({m: m, score: semantic}) AS graphHits
