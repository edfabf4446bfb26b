// name: entity_match
// Resolution of names found without a model (a batch at once): for each row, the believed
// entity visible in the scope chain ($chain, nearest first) whose normalised name or an
// alias is one of row.keys and whose type is one of row.types, the same type as row.type
// first, then the nearest scope, then the oldest. Found through the entity_keys index
// (row.query: keys.query of row.keys); a row that matches nothing returns no line.
// $rows: [{i, keys, type, types, query}]
UNWIND $rows AS row
CALL (row) {
  CALL db.index.fulltext.queryNodes('entity_keys', row.query, {limit: $limit}) YIELD node AS e
  WHERE e.tenant = $tenant AND e.scope IN $chain AND e.invalidatedAt IS NULL AND e.type IN row.types
    AND (e.nameKey IN row.keys OR any(k IN row.keys WHERE k IN e.aliasKeys))
  RETURN e
  ORDER BY CASE WHEN e.type = row.type THEN 0 ELSE 1 END, size(e.scope) DESC, e.createdAt, e.id
  LIMIT 1
}
RETURN row.i AS i, e {.*, embedding: null, embeddingB: null} AS node
