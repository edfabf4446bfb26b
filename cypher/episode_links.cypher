// name: episode_links
// Extraction provenance for entities: MENTIONS from each episode to the entities it
// mentions and, for entities this batch created ($created), DERIVED_FROM back to it.
// $rows: [{episode, entity}]
UNWIND $rows AS row
MATCH (ep:Episode {tenant: $tenant, id: row.episode})
MATCH (en:Entity {tenant: $tenant, id: row.entity})
MERGE (ep)-[:MENTIONS]->(en)
WITH ep, en
WHERE en.id IN $created
MERGE (en)-[:DERIVED_FROM]->(ep)
