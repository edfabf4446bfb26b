// fragment: recall_semantic
// The semantic side of recall (the body of `CALL (inScope, pool, exact) { ... }`): the
// memories closest in meaning to $vector among those the scopes $chain of $tenant can see.
// With `exact` (chosen by recall.cypher: no query vector, forced by $strategy, or scanning
// the scopes' inScope memories is cheaper than over-fetching from the index) every memory
// of the scopes is scored by cosine through the Memory(tenant, scope) index; otherwise the
// vector index is asked (fragment vector_neighbours: over-fetched on Neo4j 5, searched
// within the tenant on Cypher 25). A window of a long episode stands for its episode, the
// filters of recall_filter apply, and the best $poolLimit are kept.
// Returns semanticHits (the best $semanticFetch, as {m, score}) and semanticPool (all of
// them: where the graph side looks for what a seed too wide to walk is tied to).
  CALL (inScope, pool, exact) {
    UNWIND CASE WHEN $vector IS NOT NULL AND exact THEN $chain ELSE [] END AS path
    MATCH (m:Memory {tenant: $tenant, scope: path})
    USING INDEX m:Memory(tenant, scope)
    WHERE {{vector(m)}} IS NOT NULL
    RETURN m, vector.similarity.cosine({{vector(m)}}, $vector) AS semantic
    UNION
    WITH inScope, pool
    WHERE $vector IS NOT NULL AND NOT exact
    {{vector_neighbours(m)}}
    RETURN m, semantic
  }
  // a window of a long episode stands for its episode (its best window's score)
  WITH CASE WHEN m:Chunk THEN head([(m)-[:PART_OF]->(whole:Episode) | whole]) ELSE m END AS m, semantic
  WITH m, max(semantic) AS semantic
  WHERE {{recall_filter(m)}}
  WITH m, semantic ORDER BY semantic DESC, m.id LIMIT $poolLimit
  WITH collect({m: m, score: semantic}) AS found
  // the best $semanticFetch are the semantic side; the rest of what the search found is where
  // the graph side looks for what a seed too wide to walk is tied to
  RETURN found[0..$semanticFetch] AS semanticHits, found AS semanticPool
