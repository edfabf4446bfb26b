// fragment: vector_neighbours
// Cypher 25 (Neo4j 2026): this tenant's $vectorLimit nearest memories, filtered inside the
// vector index by its additional property `tenant` (SEARCH), bound to __node__, those the
// scopes $chain can see kept, with `semantic`: the search's own score, which 2026's index
// computes from the full vectors after its quantized search (it equals vector.similarity.cosine
// of the stored vector: docs/design-notes.md#vector-search-filtered), so no stored vector is
// read again. SEARCH's LIMIT must be known before the query runs: the caller sizes it.
MATCH (__node__:Memory)
  SEARCH __node__ IN (VECTOR INDEX {{vector_index}} FOR $vector WHERE __node__.tenant = $tenant LIMIT $vectorLimit)
  SCORE AS semantic
WITH __node__, semantic
WHERE __node__.scope IN $chain
