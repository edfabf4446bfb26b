// name: recall
// Hybrid recall in one round trip, composed of one fragment per side (each documented in
// its file under cypher/fragments/, each with a plan test: tests/integration/test_recall_parts.py):
//   recall_semantic -- the memories closest to $vector in the visible scopes: an exact
//                      cosine scan of the scopes (their size from the Scope nodes' memories
//                      counters) when there are at most $exactLimit, or when scanning costs
//                      less than over-fetching from the index (inScope^2 <= neighbourCost *
//                      semanticFetch * overFetch * pool), or when there is no query vector;
//                      otherwise the vector index (fragment vector_neighbours). $strategy
//                      'exact' or 'index' forces one; this statement decides `exact`.
//   recall_seeds    -- the entities the question names ($entityQuery on entity_keys).
//   recall_lexical  -- the memory_text full-text index, the words of the named speakers'
//                      names left out (this statement gathers them into `spoken`).
//   recall_graph    -- what the seeds said, are about or are named in.
//   recall_expand   -- one or two hops from the best direct hits.
// This statement counts the scopes' memories and the database's, fuses the three sides by
// reciprocal rank ($rrfK), and returns the best $keep direct hits by fusion, plus the best
// $shortlist of each side (a clear winner on one side that the other missed must reach the
// final scoring) and every graph hit, then the expanded neighbours; each with its semantic
// and lexical scores and ranks (a record found only lexically or through the graph still
// gets its true cosine similarity), graph score, its ties to the seeds (`entities`, scored
// by the caller: docs/design-notes.md#recall-entity-side), the turns next to an episode,
// and, for insights, the cited records (for facts, the episodes they were derived from).
// Filters everywhere (fragment recall_filter): tenant, visible scopes ($chain), kinds,
// status, sensitivity, transaction time ($asOf, $includeInvalidated) and valid time
// ($validAt; episodes that happened later are left out). Final scoring happens in the
// caller. Records are projected by the fragment `record` from one properties(m) read,
// temporal values as ISO-8601 text (docs/design-notes.md#recall-record-projection). The
// cached plan is kept (replan=skip) and every choice the planner could make from statistics
// is fixed by the statement itself: index hints on the label lookups, procedure calls for
// the indexes, expansions from bound nodes (docs/design-notes.md#recall-plan-kept;
// parameter padding: #recall-parameter-buckets).
CYPHER replan=skip
CALL () {
  UNWIND $chain AS path
  OPTIONAL MATCH (s:Scope {tenant: $tenant, path: path})
  USING INDEX s:Scope(tenant, path)
  RETURN sum(coalesce(s.memories, 0)) AS inScope
}
CALL () {
  MATCH (any_memory:Memory)
  RETURN count(any_memory) AS total
}
// the memories the vector index searches among: the database's (Neo4j 5), or the tenant's
// (Cypher 25: the index is filtered by tenant; fragment vector_pool)
CALL (total) {
  {{vector_pool(pool)}}
}
// exact: no query vector (nothing to search, nothing to retry), or forced, or cheaper (a
// scanned row costs Neo4j about 1/$neighbourCost of an index neighbour)
WITH inScope, total, pool,
     CASE
       WHEN $vector IS NULL OR $strategy = 'exact' THEN true
       WHEN $strategy = 'index' THEN false
       ELSE inScope <= $exactLimit OR inScope * inScope <= $neighbourCost * $semanticFetch * $overFetch * pool
     END AS exact
CALL (inScope, pool, exact) {
  {{recall_semantic}}
}
// the entities the question names (their names or aliases: $entityQuery on the entity_keys
// index; "I" and "you" seed nothing: docs/design-notes.md#recall-entity-side)
CALL () {
  {{recall_seeds}}
}
// the words of the speakers' names among them: the full-text side leaves them out (the
// graph side says who spoke; in the text such a name is mostly an address, "Hey Mel")
WITH inScope, total, pool, exact, semanticHits, semanticPool, seeds, reduce(words = [], s IN [x IN seeds WHERE x.speaks] |
       words + split(s.e.nameKey, ' ') + reduce(more = [], k IN coalesce(s.e.aliasKeys, []) | more + split(k, ' '))) AS spoken
CALL (inScope, total, spoken) {
  {{recall_lexical}}
}
// the graph side: what those entities said, are named in or are about, the best
// $graphFetch by cosine similarity (an entity linked to more than $walkLimit records is
// not walked: it only marks the candidates the other sides found)
CALL (seeds, semanticPool) {
  {{recall_graph}}
}
WITH inScope, total, pool, exact, semanticHits, lexicalHits, lexicalOpen, lexicalForeign, lexicalSaturated, seeds,
     [i IN range(0, size(semanticHits) - 1) | {m: semanticHits[i].m, semantic: semanticHits[i].score, semanticRank: i + 1}]
     + [i IN range(0, size(lexicalHits) - 1) | {m: lexicalHits[i].m, lexical: lexicalHits[i].score, lexicalRank: i + 1}]
     + [i IN range(0, size(graphHits) - 1) | {m: graphHits[i].m, semantic: graphHits[i].score, graphRank: i + 1}] AS ranked
UNWIND (CASE WHEN ranked = [] THEN [null] ELSE ranked END) AS hit
WITH inScope, total, pool, exact, size(semanticHits) AS semanticCount, size(lexicalHits) AS lexicalCount, lexicalOpen, lexicalForeign, lexicalSaturated, seeds, hit.m AS m, max(hit.semantic) AS semantic,
     max(hit.lexical) AS lexical, min(hit.semanticRank) AS semanticRank, min(hit.lexicalRank) AS lexicalRank,
     min(hit.graphRank) AS graphRank
WITH inScope, total, pool, exact, semanticCount, lexicalCount, lexicalOpen, lexicalForeign, lexicalSaturated, seeds, m, semantic, lexical, semanticRank, lexicalRank, graphRank,
     coalesce(1.0 / ($rrfK + semanticRank), 0.0) + coalesce(1.0 / ($rrfK + lexicalRank), 0.0) AS rrf
ORDER BY rrf DESC, m.id
WITH inScope, total, pool, exact, semanticCount, lexicalCount, lexicalOpen, lexicalForeign, lexicalSaturated, seeds,
     collect({m: m, semantic: semantic, lexical: lexical, semanticRank: semanticRank,
              lexicalRank: lexicalRank, graphRank: graphRank, rrf: rrf}) AS direct
CALL (direct) {
  {{recall_expand}}
}
WITH inScope, total, pool, exact, semanticCount, lexicalCount, lexicalOpen, lexicalForeign, lexicalSaturated, seeds, expanded,
     [i IN range(0, size(direct) - 1)
      WHERE i < $keep OR direct[i].semanticRank <= $shortlist OR direct[i].lexicalRank <= $shortlist
        OR direct[i].graphRank IS NOT NULL
      | direct[i]] AS direct
WITH inScope, total, pool, exact, semanticCount, lexicalCount, lexicalOpen, lexicalForeign, lexicalSaturated, seeds, direct, expanded,
     [x IN direct WHERE x.m IS NOT NULL | x.m] + [x IN expanded | x.m] AS nodes
UNWIND (CASE WHEN nodes = [] THEN [null] ELSE nodes END) AS m
WITH DISTINCT inScope, total, pool, exact, semanticCount, lexicalCount, lexicalOpen, lexicalForeign, lexicalSaturated, seeds, direct, expanded, m
WITH inScope, total, pool, exact, semanticCount, lexicalCount, lexicalOpen, lexicalForeign, lexicalSaturated, seeds, m, properties(m) AS p,
     head([x IN direct WHERE x.m = m]) AS d,
     head([x IN expanded WHERE x.m = m]) AS e,
     [s IN seeds | s.e] AS seedNodes
RETURN inScope, total, pool, exact, semanticCount, lexicalCount, lexicalOpen, lexicalForeign, lexicalSaturated,
       [s IN seeds | {id: s.e.id, name: s.e.name, type: s.e.type, degree: s.degree, speaks: s.speaks,
                      keys: [s.e.nameKey] + coalesce(s.e.aliasKeys, [])}] AS seeds,
       CASE WHEN m IS NULL THEN null ELSE
         [(m)-[link:SPOKE|MENTIONS|ABOUT]-(s:Entity) WHERE s IN seedNodes | {seed: s.id, link: type(link)}]
         + [(m)<-[:DERIVED_FROM]-(f:Fact)-[:ABOUT]->(s:Entity) WHERE s IN seedNodes AND f.invalidatedAt IS NULL
            | {seed: s.id, link: 'FACT'}] END AS entities,
       d.graphRank AS graphRank,
       CASE WHEN m IS NULL THEN null ELSE {{record(p)}} END AS node,
       CASE WHEN d.semantic IS NOT NULL THEN d.semantic
            WHEN $vector IS NOT NULL AND {{vector(p)}} IS NOT NULL
            THEN vector.similarity.cosine({{vector(p)}}, $vector) END AS semantic,
       d.lexical AS lexical, d.semanticRank AS semanticRank,
       CASE WHEN m:Episode THEN [(m)-[:NEXT]-(turn) | turn.id] ELSE [] END AS neighbours,
       d.lexicalRank AS lexicalRank, coalesce(e.via, 0.0) AS graph,
       CASE WHEN m:Insight THEN [(m)-[:CITES]->(c)
            WHERE 'Memory' IN labels(c) AND c.tenant = $tenant AND c.scope IN $chain AND c.status IN $statuses AND c.sensitivity IN $sensitivities
              AND c.createdAt <= $asOf
              AND ($includeInvalidated OR c.invalidatedAt IS NULL OR c.invalidatedAt > $asOf)
            | {{record(c)}}]
            WHEN m:Fact THEN [(m)-[:DERIVED_FROM]->(c:Episode)
            WHERE c.tenant = $tenant AND c.scope IN $chain AND c.sensitivity IN $sensitivities
              AND c.createdAt <= $asOf
              AND ($includeInvalidated OR c.invalidatedAt IS NULL OR c.invalidatedAt > $asOf)
            | {{record(c)}}] ELSE [] END AS cites
