// name: procedure_outcome
// Records one use of a believed procedure: success or failure count (write lock taken
// before the read) and lastUsedAt; with $episodeId, an OUTCOME edge to that episode. An
// active procedure whose failure rate exceeds $maxFailureRate after at least $minOutcomes
// outcomes is demoted to quarantined ($entry appended to statusLog).
MATCH (p:Procedure {tenant: $tenant, id: $id})
WHERE p.invalidatedAt IS NULL
SET p._lock = true
SET p.successCount = coalesce(p.successCount, 0) + CASE WHEN $success THEN 1 ELSE 0 END,
    p.failureCount = coalesce(p.failureCount, 0) + CASE WHEN $success THEN 0 ELSE 1 END,
    p.lastUsedAt = $now
REMOVE p._lock
WITH p, p.successCount + p.failureCount AS outcomes
WITH p, p.status = 'active' AND outcomes >= $minOutcomes
        AND 1.0 * p.failureCount / outcomes > $maxFailureRate AS demote
FOREACH (_ IN CASE WHEN demote THEN [1] ELSE [] END |
  SET p.status = 'quarantined', p.statusChangedAt = $now,
      p.statusLog = coalesce(p.statusLog, []) + [$entry])
WITH p, demote
OPTIONAL MATCH (e:Episode {tenant: $tenant, id: $episodeId})
FOREACH (_ IN CASE WHEN e IS NULL THEN [] ELSE [1] END |
  CREATE (p)-[:OUTCOME {success: $success, at: $now}]->(e))
RETURN p {.*, embedding: null, embeddingB: null, cites: [(p)-[:CITES]->(c:Memory {tenant: $tenant}) | c.id]} AS node,
       demote AS demoted
