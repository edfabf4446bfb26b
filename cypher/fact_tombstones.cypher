// name: fact_tombstones
// Of the given candidate statements, the ids of those a user asked to forget (a forgotten
// fact with the same normalised text, or the same subject/predicate/object, visible in the
// row's scope chain) and that no person has stated again since.
// $rows: [{id, key, subject, predicate, object, chain}]
UNWIND $rows AS row
CALL (row) {
  OPTIONAL MATCH (t:Memory {tenant: $tenant, textKey: row.key})
  WHERE t.invalidationReason = 'forgotten' AND t.scope IN row.chain
  RETURN count(t) AS byText
}
CALL (row) {
  OPTIONAL MATCH (t:Fact {tenant: $tenant, subject: row.subject, predicate: row.predicate})
  WHERE t.object = row.object AND t.invalidationReason = 'forgotten' AND t.scope IN row.chain
  RETURN count(t) AS byTriple
}
CALL (row) {
  OPTIONAL MATCH (b:Memory {tenant: $tenant, textKey: row.key})
  WHERE b.invalidatedAt IS NULL AND b.scope IN row.chain AND NOT b.provenance IN $automatic
  RETURN count(b) AS restated
}
WITH row, byText, byTriple, restated
WHERE byText + byTriple > 0 AND restated = 0
RETURN row.id AS id
