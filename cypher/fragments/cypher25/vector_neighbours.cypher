// fragment: vector_neighbours
// Cypher 25 (Neo4j 2026): this tenant's $vectorLimit nearest memories, filtered inside the
// vector index by its additional property `tenant` (SEARCH), bound to __node__. SEARCH's
// LIMIT must be known before the query runs, so the caller sizes it (_recall.params).
MATCH (__node__:Memory)
  SEARCH __node__ IN (VECTOR INDEX memory_embedding FOR $vector WHERE __node__.tenant = $tenant LIMIT $vectorLimit)
