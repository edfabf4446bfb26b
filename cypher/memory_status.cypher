// name: memory_status
// Moves a believed memory from one of the statuses in $fromStatuses to $to and records when
// (statusChangedAt) and the change itself ($entry, appended to statusLog).
MATCH (m:Memory {tenant: $tenant, id: $id})
WHERE m.invalidatedAt IS NULL AND m.status IN $fromStatuses
SET m.status = $to, m.statusChangedAt = $now, m.statusLog = coalesce(m.statusLog, []) + [$entry]
RETURN m {.*, embedding: null, embeddingB: null, cites: [(m)-[:CITES]->(c:Memory {tenant: $tenant}) | c.id]} AS node
