// name: insight_corroborate
// A new statement of an existing insight: its salience rises by one (write lock taken
// before the read) and it gains CITES edges to any new evidence ($cites).
MATCH (i:Insight {tenant: $tenant, id: $id})
WHERE i.invalidatedAt IS NULL
SET i._lock = true
SET i.salience = coalesce(i.salience, 2) + 1, i.lastCorroboratedAt = $now
REMOVE i._lock
WITH i
CALL (i) {
  UNWIND $cites AS citedId
  MATCH (e:Memory {tenant: $tenant, id: citedId})
  MERGE (i)-[:CITES]->(e)
}
RETURN i {.*, embedding: null, embeddingB: null, cites: [(i)-[:CITES]->(c:Memory {tenant: $tenant}) | c.id]} AS node
