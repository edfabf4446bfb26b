// name: fact_duplicates
// For each candidate new fact, a believed, current fact that already says the same thing in
// the same scope: same normalised text, provenance, subject, predicate, object and end of
// validity, still valid at $now, and, when the candidate's start was stated, the same start
// (a start that was only observed matches any), stated by the same owner (user, agent and
// session: '' stands for none, which no id can be). remember() returns that fact instead of
// writing a second one. $rows: [{id, scope, key, provenance, subject, predicate, object,
// validFrom (null when only observed), validTo, userId, agentId, sessionId}]
// The text-key index is named: without the hint the planner may turn the predicate's OR into
// a union whose other side scans every fact with a predicate, once per row (seen at 5,000
// rows a batch: over a minute for one statement).
UNWIND $rows AS row
CALL (row) {
  MATCH (m:Memory {tenant: $tenant, textKey: row.key})
  USING INDEX m:Memory(tenant, textKey)
  WHERE m:Fact AND m.scope = row.scope AND m.invalidatedAt IS NULL AND m.status <> 'rejected'
    AND m.provenance = row.provenance
    AND (m.subject = row.subject OR (m.subject IS NULL AND row.subject IS NULL))
    AND (m.predicate = row.predicate OR (m.predicate IS NULL AND row.predicate IS NULL))
    AND (m.object = row.object OR (m.object IS NULL AND row.object IS NULL))
    AND (m.validTo = row.validTo OR (m.validTo IS NULL AND row.validTo IS NULL))
    AND (row.validFrom IS NULL OR m.validFrom = row.validFrom)
    AND (m.validTo IS NULL OR m.validTo > $now)
    AND coalesce(m.userId, '') = coalesce(row.userId, '') AND coalesce(m.agentId, '') = coalesce(row.agentId, '')
    AND coalesce(m.sessionId, '') = coalesce(row.sessionId, '')
  RETURN m ORDER BY m.createdAt, m.id LIMIT 1
}
RETURN row.id AS id, m {.*, embedding: null, embeddingB: null} AS node
