// name: entity_same_as
// Records possible duplicates for review: a SAME_AS edge from each new entity to the
// existing one it resembles, with the similarity and status 'candidate'.
// $rows: [{id, candidate, similarity}]
UNWIND $rows AS row
MATCH (a:Entity {tenant: $tenant, id: row.id})
MATCH (b:Entity {tenant: $tenant, id: row.candidate})
MERGE (a)-[s:SAME_AS]->(b)
  ON CREATE SET s.similarity = row.similarity, s.status = 'candidate', s.at = $now
