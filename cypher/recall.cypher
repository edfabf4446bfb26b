// name: recall
// Hybrid recall in one round trip. Candidates:
//   semantic -- an exact cosine scan of the memories in the visible scopes (their number
//               comes from the scopes' memories counters) when there are at most
//               $exactLimit of them, or when scanning them costs less than over-fetching
//               from the index (inScope^2 <= neighbourCost * semanticFetch * overFetch *
//               pool), or when there is no query vector (nothing to search): a small
//               scope in a large tenant gets its true top-k. Otherwise the vector index
//               (fragment vector_neighbours: on Neo4j 5 asked for $semanticFetch
//               neighbours over-fetched by pool / inScope times $overFetch, filtered and
//               re-scored exactly, the index may be quantized; on Neo4j 2026 searched within
//               the tenant, its score already the exact cosine), then filtered to the scopes. Keeps the best $semanticFetch. $strategy 'exact' or 'index'
//               forces one. The pool is what the index searches among: every memory of
//               the database on Neo4j 5; on Cypher 25 (recall:cypher25, Neo4j 2026) the
//               tenant's, the index filtering by tenant inside the search (SEARCH).
//   lexical  -- the full-text index: the question's $lexicalWords but the words of the
//               names of speakers it names (the graph side says who spoke), narrowed to the
//               visible scopes by lexKey ($lexKeys: a zero-weight clause, so scores are the
//               text's alone), or, when those scopes hold $openShare of all memories, sent
//               open and over-fetched by total / inScope (narrowing would exclude little and
//               costs more). Keeps the best $fetch. Returns whether the open query dropped
//               others' documents and came back full (the caller may retry).
//   graph    -- the seeds: entities the question names ($entityQuery on the entity_keys
//               index: a name or alias equal to a run of its words), each with its degree; then what the
//               seeds said (SPOKE), are about (ABOUT) or, for a seed that does not speak, are
//               named in (MENTIONS; a speaker named is mostly addressed), the best $graphFetch by cosine: walked for a seed tied to at most $walkLimit records;
//               for a wider one, the records tied to it among the best $poolLimit the
//               semantic side found (what the vector search returned, past its own top).
//               Every returned record lists its ties to the seeds (`entities`), which the
//               caller scores (docs/design-notes.md#recall-entity-side).
// Filters: tenant, visible scopes ($chain), kinds, status, sensitivity, transaction time
// ($asOf, $includeInvalidated) and valid time ($validAt; episodes that happened later are
// left out). The best $expandFrom hits of the two index sides by reciprocal rank fusion are
// expanded one hop through ABOUT, RELATES, CITES and DERIVED_FROM, and two, through an entity
// they name that does not speak, to the other turns naming it when at most $mentionLimit do (same filters on the
// neighbours; a RELATES edge must itself be believed and valid; citations are filtered too).
// Returns the best $keep direct hits by fusion, plus the best $shortlist of each side (a clear winner on one side
// that the other side missed must reach the final scoring), and the expanded neighbours
// with their semantic and lexical scores and ranks (a record found only lexically or
// through the graph still gets its true cosine similarity, so missing the semantic
// shortlist does not zero its semantic part), graph score, and, for insights, the cited
// records (for facts, the episodes they were derived from). Final scoring happens in the caller. Records are projected by the shared
// fragment `record` from one properties(m) read, temporal values as ISO-8601 text
// (docs/design-notes.md#recall-record-projection). The cached plan is kept (replan=skip) and
// every choice the planner could make from statistics is fixed by the statement itself:
// index hints on the label lookups, procedure calls for the indexes, expansions from bound
// nodes (docs/design-notes.md#recall-plan-kept; parameter padding: #recall-parameter-buckets).
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
}
// the entities the question names (their names or aliases: $entityQuery on the entity_keys
// index; "I" and "you" seed nothing: docs/design-notes.md#recall-entity-side)
CALL () {
  WITH $entityQuery AS wanted
  WHERE trim(wanted) <> ''
  CALL db.index.fulltext.queryNodes('entity_keys', wanted, {limit: $seedLimit}) YIELD node AS e
  WITH DISTINCT e
  WHERE e.tenant = $tenant AND e.scope IN $chain AND e.invalidatedAt IS NULL
  WITH e, EXISTS { (e)-[:SPOKE]->(:Episode) } AS speaks
  // a speaker's ties are what they said and what is about them: a turn naming them mostly
  // addresses them ("Hey Mel"), so it is no tie (docs/design-notes.md#recall-entity-side)
  RETURN collect({e: e, speaks: speaks,
                  degree: CASE WHEN speaks THEN COUNT { (e)-[:SPOKE|ABOUT]-() }
                               ELSE COUNT { (e)-[:SPOKE|MENTIONS|ABOUT]-() } END}) AS seeds
}
// the words of the speakers' names among them: the full-text side leaves them out (the
// graph side says who spoke; in the text such a name is mostly an address, "Hey Mel")
WITH inScope, total, pool, exact, semanticHits, semanticPool, seeds, reduce(words = [], s IN [x IN seeds WHERE x.speaks] |
       words + split(s.e.nameKey, ' ') + reduce(more = [], k IN coalesce(s.e.aliasKeys, []) | more + split(k, ' '))) AS spoken
CALL (inScope, total, spoken) {
  CALL (inScope, total, spoken) {
    WITH inScope, total, spoken, [w IN $lexicalWords WHERE w <> ''] AS words
    WITH inScope, total, CASE WHEN any(w IN words WHERE NOT w IN spoken) THEN [w IN words WHERE NOT w IN spoken]
                              ELSE words END AS words
    WHERE size(words) > 0
    WITH NOT $scopedLexical AND inScope > 0 AND inScope >= $openShare * total AS open,
         CASE WHEN inScope > 0 AND total > inScope THEN 1.0 * total / inScope ELSE 1.0 END AS spread,
         'text:(' + reduce(text = '', w IN words | text + ' ' + w) + ')' AS lucene
    WITH open, CASE WHEN open THEN toInteger(ceil($textFetch * spread)) ELSE $textFetch END AS textLimit,
         CASE WHEN open THEN lucene ELSE lucene + ' AND (lexKey:(' + $lexKeys + '))^0' END AS lucene
    CALL db.index.fulltext.queryNodes('memory_text', lucene, {limit: textLimit})
      YIELD node AS m, score AS lexical
    RETURN m, lexical, open, textLimit, m.tenant = $tenant AND m.scope IN $chain AS visible
  }
  WITH m, lexical, open, textLimit, visible,
       visible AND {{recall_filter(m)}} AS wanted
  ORDER BY lexical DESC, m.id
  WITH collect(CASE WHEN wanted THEN {m: m, score: lexical} END) AS hits, coalesce(max(open), false) AS open,
       count(CASE WHEN NOT visible THEN 1 END) AS foreign, count(m) AS returned, max(textLimit) AS textLimit
  // saturated: Lucene returned as many hits as asked for, so a narrowed query could find more
  RETURN hits[0..$fetch] AS lexicalHits, open AS lexicalOpen, foreign AS lexicalForeign,
         returned > 0 AND returned >= textLimit AS lexicalSaturated
}
// the graph side: what those entities said, are named in or are about, the best
// $graphFetch by cosine similarity (an entity linked to more than $walkLimit records is
// not walked: it only marks the candidates the other sides found)
CALL (seeds, semanticPool) {
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
  UNWIND [x IN direct WHERE x.semanticRank IS NOT NULL OR x.lexicalRank IS NOT NULL][0..$expandFrom] AS hit
  WITH hit, hit.m AS source
  WHERE source IS NOT NULL
  // expand from the hit itself, not from a labelled neighbour (docs/design-notes.md#recall-plan-kept)
  UNWIND [(source)-[link:ABOUT|RELATES|CITES|DERIVED_FROM]-(n)
          WHERE 'Memory' IN labels(n) AND n.tenant = $tenant AND n.scope IN $chain
            AND (NOT link:RELATES OR (link.createdAt <= $asOf
                 AND ($includeInvalidated OR link.invalidatedAt IS NULL OR link.invalidatedAt > $asOf)
                 AND (link.validFrom IS NULL OR link.validFrom <= $validAt)
                 AND (link.validTo IS NULL OR link.validTo > $validAt)))
            AND {{recall_filter(n)}}
          | n]
         + [(source)-[:MENTIONS]->(named:Entity)<-[:MENTIONS]-(n:Episode)
            WHERE n <> source AND n.tenant = $tenant AND n.scope IN $chain
              AND COUNT { (named)<-[:MENTIONS]-() } <= $mentionLimit AND NOT EXISTS { (named)-[:SPOKE]->() }
              AND {{recall_filter(n)}}
            | n] AS n
  WITH n, max(hit.rrf) AS via
  ORDER BY via DESC, n.id LIMIT $expandLimit
  RETURN collect({m: n, via: via}) AS expanded
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
