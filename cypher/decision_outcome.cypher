// name: decision_outcome
// Records how decision $id turned out: outcome, quality and outcomeAt; an earlier outcome
// is kept as a line of outcomeLog ($previous, built by the caller from the stored values).
MATCH (d:Decision {tenant: $tenant, id: $id})
SET d.outcomeLog = coalesce(d.outcomeLog, []) + CASE WHEN d.outcome IS NULL THEN [] ELSE [$previous] END,
    d.outcome = $outcome, d.quality = $quality, d.outcomeAt = $now
RETURN d {.*, embedding: null, embeddingB: null} AS node
