// name: episode_chunks_create
// Writes the windows of long episodes: one :Memory:Chunk per row (an embedding, no text, so
// the full-text index keeps matching the whole episode), PART_OF its episode $rows.episodeId.
// Chunks are not counted in their scope's memories; recall answers with their episode.
// $rows: [{episodeId, props}]. Returns how many were written.
UNWIND $rows AS row
MATCH (e:Episode {tenant: $tenant, id: row.episodeId})
CREATE (c:Memory:Chunk)
SET c = row.props, c.tenant = $tenant, c.kind = 'chunk', c.createdAt = $now
{{vector_placed(c)}}
CREATE (c)-[:PART_OF]->(e)
RETURN count(c) AS written
