// name: fact_tombstones
// Of the given candidate statements, the ids of those a user asked to forget: a forgotten
// record with the same normalised text, or a forgotten fact with the same
// subject/predicate/object, in the row's scope chain or below its scope (a statement
// written higher up would be visible there again), that no person has stated again since
// it was forgotten. A forget is a person's: a tombstone of a user's record holds back only
// that user's statements (one without a user, everyone's), and only that user stating it
// again lifts it. $rows: [{id, key, subject, predicate, object, chain, scope, userId}]
UNWIND $rows AS row
CALL (row) {
  OPTIONAL MATCH (t:Memory {tenant: $tenant, textKey: row.key})
  WHERE t.invalidationReason = 'forgotten'
    AND (t.scope IN row.chain OR t.scope STARTS WITH row.scope + '/')
    AND (t.userId IS NULL OR t.userId = row.userId)
  RETURN max(t.invalidatedAt) AS byText
}
CALL (row) {
  OPTIONAL MATCH (t:Fact {tenant: $tenant, subject: row.subject, predicate: row.predicate})
  WHERE t.object = row.object AND t.invalidationReason = 'forgotten'
    AND (t.scope IN row.chain OR t.scope STARTS WITH row.scope + '/')
    AND (t.userId IS NULL OR t.userId = row.userId)
  RETURN max(t.invalidatedAt) AS byTriple
}
WITH row, CASE WHEN byText IS NULL OR byTriple > byText THEN byTriple ELSE byText END AS forgottenAt
WHERE forgottenAt IS NOT NULL
CALL (row, forgottenAt) {
  OPTIONAL MATCH (b:Memory {tenant: $tenant, textKey: row.key})
  WHERE b.invalidatedAt IS NULL AND b.scope IN row.chain AND NOT b.provenance IN $automatic
    AND b.createdAt > forgottenAt AND coalesce(b.userId, '') = coalesce(row.userId, '')
  RETURN count(b) AS restated
}
WITH row, restated
WHERE restated = 0
RETURN row.id AS id
