// name: reflect_evidence
// What reflection looks at: the $limit most recent believed, active facts and episodes
// visible in $chain (written at or after $since when given), newest first, not ended by
// $validAt and current in the view of $chain then (fragment fact_current, with $asOf and
// $validAt the time of the reflection: a single-valued fact another scope of the chain
// outranks is left out).
UNWIND $chain AS path
MATCH (m:Memory {tenant: $tenant, scope: path})
WHERE m.kind IN ['fact', 'episode'] AND m.invalidatedAt IS NULL AND m.status = 'active'
  AND ($since IS NULL OR m.createdAt >= $since)
  AND (m.validTo IS NULL OR m.validTo > $validAt)
  AND {{fact_current(m)}}
RETURN m.id AS id, m.kind AS kind, m.text AS text, coalesce(m.occurredAt, m.validFrom, m.createdAt) AS at,
       m.sensitivity AS sensitivity
ORDER BY m.createdAt DESC, m.id
LIMIT $limit
