// name: reembed_page
// One page of memories whose vector a re-embedding has still to make: a vector in the slot
// being replaced (`vector` in the version of that slot) and none yet in the other one
// (`staging`), of the tenants $tenants (null: every tenant), in (tenant, id) order after
// ($afterTenant, $afterId), at most $limit. With what the new embedder is given
// (_memory/embedded.py): a window's episode text, as a long episode's windows have no text.
MATCH (m:Memory)
WHERE {{vector(m)}} IS NOT NULL AND {{staging(m)}} IS NULL
  AND ($tenants IS NULL OR m.tenant IN $tenants)
  AND (m.tenant > $afterTenant OR (m.tenant = $afterTenant AND m.id > $afterId))
WITH m ORDER BY m.tenant, m.id LIMIT $limit
OPTIONAL MATCH (m:Chunk)-[:PART_OF]->(episode:Episode)
RETURN m.tenant AS tenant, m.id AS id, m.kind AS kind,
       m {.text, .predicate, .trigger, .condition, .reasoning, .position} AS props,
       episode.text AS episodeText
ORDER BY tenant, id
