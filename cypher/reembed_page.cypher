// name: reembed_page
// One page of the memories of $tenant whose vector a re-embedding has still to make: a
// vector in the slot being replaced (`vector` in the version of that slot), or marked
// reembedPending (reembed_strand: its vector was lost to the other slot), or none at all
// though it is owed one (`embeddable`: written without an embedder, its vector removed as one
// Neo4j cannot compare), and none yet in the other one (`staging`), in id order after $afterId, at most $limit (an index seek on
// (tenant, id) read in the index's order, which ordering by both of its keys lets the planner
// use: a page costs what it returns, not what the tenant holds). With what the new
// embedder is given (_memory/embedded.py): a window's episode text, as a long episode's
// windows have no text of their own.
MATCH (m:Memory {tenant: $tenant})
WHERE m.id > $afterId AND ({{vector(m)}} IS NOT NULL OR m.reembedPending = true OR {{embeddable(m)}})
  AND {{staging(m)}} IS NULL
WITH m ORDER BY m.tenant, m.id LIMIT $limit
OPTIONAL MATCH (m:Chunk)-[:PART_OF]->(episode:Episode)
RETURN m.tenant AS tenant, m.id AS id, m.kind AS kind,
       m {.text, .predicate, .embeddedFrom, .trigger, .condition, .reasoning, .position} AS props,
       episode.text AS episodeText
ORDER BY id
