// name: episode_mentions
// The graph a batch's own words give (no model): MENTIONS from each episode to the entities
// it names, with the character spans of the names (starts[i]..ends[i] of the episode's
// text) and the extractor's labels; SPOKE from each speaker's entity to what it said; and,
// for the entities this batch created ($created), DERIVED_FROM to the episodes they came from.
// $mentions: [{episode, entity, starts, ends, labels}]; $spoke: [{episode, entity}]
CALL () {
  UNWIND $mentions AS row
  MATCH (ep:Episode {tenant: $tenant, id: row.episode})
  MATCH (en:Entity {tenant: $tenant, id: row.entity})
  MERGE (ep)-[link:MENTIONS]->(en)
  SET link.starts = row.starts, link.ends = row.ends, link.labels = row.labels
  RETURN count(*) AS mentions
}
CALL () {
  UNWIND $spoke AS row
  MATCH (ep:Episode {tenant: $tenant, id: row.episode})
  MATCH (en:Entity {tenant: $tenant, id: row.entity})
  MERGE (en)-[:SPOKE]->(ep)
  RETURN count(*) AS spoke
}
CALL () {
  UNWIND [row IN $mentions + $spoke WHERE row.entity IN $created] AS row
  MATCH (ep:Episode {tenant: $tenant, id: row.episode})
  MATCH (en:Entity {tenant: $tenant, id: row.entity})
  MERGE (en)-[:DERIVED_FROM]->(ep)
  RETURN count(*) AS derived
}
RETURN mentions, spoke, derived
