// name: recall
// Hybrid recall in one round trip. Candidates:
//   semantic -- when the scope chain holds at most $exactLimit memories, an exact cosine
//               scan of them (true top-k, whatever the rest of the tenant holds); otherwise
//               the vector index, over-fetched by the ratio of all memories to that limit
//               times $overFetch, then filtered and re-scored exactly (the index may be
//               quantized);
//   lexical  -- the full-text index ($lucene, narrowed to the visible scopes by lexKey).
// Filters: tenant, visible scopes ($chain), kinds, status, sensitivity, transaction time
// ($asOf, $includeInvalidated) and valid time ($validAt; episodes that happened later are
// left out). The best $expandFrom hits by reciprocal rank fusion are expanded one hop
// through ABOUT, RELATES, CITES and DERIVED_FROM (same filters). Returns every candidate
// with its semantic and lexical scores and ranks, its graph score, and, for insights, the
// cited records. Final scoring happens in the caller.
CALL () {
  MATCH (m:Memory {tenant: $tenant})
  WHERE m.scope IN $chain
  WITH m LIMIT $exactLimit + 1
  RETURN count(m) AS inScope
}
CALL (inScope) {
  CALL (inScope) {
    WITH inScope
    WHERE $vector IS NOT NULL AND inScope <= $exactLimit
    MATCH (m:Memory {tenant: $tenant})
    WHERE m.scope IN $chain AND m.embedding IS NOT NULL
    RETURN m, vector.similarity.cosine(m.embedding, $vector) AS semantic
    UNION
    WITH inScope
    WHERE $vector IS NOT NULL AND inScope > $exactLimit
    CALL () {
      MATCH (any_memory:Memory)
      RETURN count(any_memory) AS total
    }
    WITH toInteger($fetch * $overFetch * (1.0 * total / $exactLimit)) + $fetch AS wanted
    CALL db.index.vector.queryNodes('memory_embedding',
        CASE WHEN wanted > $maxVectorFetch THEN $maxVectorFetch ELSE wanted END, $vector)
      YIELD node AS m
    WITH m
    WHERE m.tenant = $tenant AND m.scope IN $chain
    RETURN m, vector.similarity.cosine(m.embedding, $vector) AS semantic
  }
  WITH m, semantic
  WHERE ($kinds IS NULL OR m.kind IN $kinds)
    AND m.status IN $statuses AND m.sensitivity IN $sensitivities
    AND m.createdAt <= $asOf
    AND ($includeInvalidated OR m.invalidatedAt IS NULL OR m.invalidatedAt > $asOf)
    AND (m.validFrom IS NULL OR m.validFrom <= $validAt)
    AND (m.validTo IS NULL OR m.validTo > $validAt OR m.closedAt > $asOf)
    AND (m.occurredAt IS NULL OR m.occurredAt <= $validAt)
  WITH m, semantic ORDER BY semantic DESC, m.id LIMIT $fetch
  RETURN collect({m: m, score: semantic}) AS semanticHits
}
CALL () {
  CALL () {
    WITH 1 AS one
    WHERE $lucene IS NOT NULL
    CALL db.index.fulltext.queryNodes('memory_text', $lucene, {limit: $textFetch})
      YIELD node AS m, score AS lexical
    WITH m, lexical
    WHERE m.tenant = $tenant AND m.scope IN $chain
    RETURN m, lexical
  }
  WITH m, lexical
  WHERE ($kinds IS NULL OR m.kind IN $kinds)
    AND m.status IN $statuses AND m.sensitivity IN $sensitivities
    AND m.createdAt <= $asOf
    AND ($includeInvalidated OR m.invalidatedAt IS NULL OR m.invalidatedAt > $asOf)
    AND (m.validFrom IS NULL OR m.validFrom <= $validAt)
    AND (m.validTo IS NULL OR m.validTo > $validAt OR m.closedAt > $asOf)
    AND (m.occurredAt IS NULL OR m.occurredAt <= $validAt)
  WITH m, lexical ORDER BY lexical DESC, m.id LIMIT $fetch
  RETURN collect({m: m, score: lexical}) AS lexicalHits
}
WITH inScope, semanticHits, lexicalHits,
     [i IN range(0, size(semanticHits) - 1) | {m: semanticHits[i].m, semantic: semanticHits[i].score, semanticRank: i + 1}]
     + [i IN range(0, size(lexicalHits) - 1) | {m: lexicalHits[i].m, lexical: lexicalHits[i].score, lexicalRank: i + 1}] AS ranked
UNWIND (CASE WHEN ranked = [] THEN [null] ELSE ranked END) AS hit
WITH inScope, size(semanticHits) AS semanticCount, hit.m AS m, max(hit.semantic) AS semantic,
     max(hit.lexical) AS lexical, min(hit.semanticRank) AS semanticRank, min(hit.lexicalRank) AS lexicalRank
WITH inScope, semanticCount, m, semantic, lexical, semanticRank, lexicalRank,
     coalesce(1.0 / ($rrfK + semanticRank), 0.0) + coalesce(1.0 / ($rrfK + lexicalRank), 0.0) AS rrf
ORDER BY rrf DESC, m.id
WITH inScope, semanticCount,
     collect({m: m, semantic: semantic, lexical: lexical, semanticRank: semanticRank,
              lexicalRank: lexicalRank, rrf: rrf}) AS direct
CALL (direct) {
  UNWIND direct[0..$expandFrom] AS hit
  WITH hit, hit.m AS source
  WHERE source IS NOT NULL
  MATCH (source)-[:ABOUT|RELATES|CITES|DERIVED_FROM]-(n:Memory)
  WHERE n.tenant = $tenant AND n.scope IN $chain
    AND ($kinds IS NULL OR n.kind IN $kinds)
    AND n.status IN $statuses AND n.sensitivity IN $sensitivities
    AND n.createdAt <= $asOf
    AND ($includeInvalidated OR n.invalidatedAt IS NULL OR n.invalidatedAt > $asOf)
    AND (n.validFrom IS NULL OR n.validFrom <= $validAt)
    AND (n.validTo IS NULL OR n.validTo > $validAt OR n.closedAt > $asOf)
    AND (n.occurredAt IS NULL OR n.occurredAt <= $validAt)
  WITH n, max(hit.rrf) AS via
  ORDER BY via DESC, n.id LIMIT $expandLimit
  RETURN collect({m: n, via: via}) AS expanded
}
WITH inScope, semanticCount, direct, expanded,
     [x IN direct WHERE x.m IS NOT NULL | x.m] + [x IN expanded | x.m] AS nodes
UNWIND (CASE WHEN nodes = [] THEN [null] ELSE nodes END) AS m
WITH DISTINCT inScope, semanticCount, direct, expanded, m
WITH inScope, semanticCount, m,
     head([x IN direct WHERE x.m = m]) AS d,
     head([x IN expanded WHERE x.m = m]) AS e
RETURN inScope, semanticCount, $exactLimit AS exactLimit,
       CASE WHEN m IS NULL THEN null ELSE m {.*, embedding: null} END AS node,
       d.semantic AS semantic, d.lexical AS lexical, d.semanticRank AS semanticRank,
       d.lexicalRank AS lexicalRank, coalesce(e.via, 0.0) AS graph,
       CASE WHEN m:Insight THEN [(m)-[:CITES]->(c:Memory {tenant: $tenant}) | c {.*, embedding: null}] ELSE [] END AS cites
