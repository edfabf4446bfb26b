// name: entity_nickname
// The speaker a short name stands for ("Mel" for Melanie): for each row (a one-word person
// name that resolved to nothing), the believed person visible in $chain who speaks (has a
// SPOKE edge) and whose name's first word starts with row.key, when there is exactly one.
// Found through the entity_keys index by prefix (row.query: nameKey:<key>*).
// $rows: [{i, key, query}]
UNWIND $rows AS row
CALL (row) {
  CALL db.index.fulltext.queryNodes('entity_keys', row.query, {limit: $limit}) YIELD node AS e
  WHERE e.tenant = $tenant AND e.scope IN $chain AND e.invalidatedAt IS NULL AND e.type = 'person'
    AND e.nameKey <> row.key AND split(e.nameKey, ' ')[0] STARTS WITH row.key
    AND EXISTS { (e)-[:SPOKE]->(:Episode) }
  WITH collect(e) AS found
  WHERE size(found) = 1
  RETURN found[0] AS e
}
RETURN row.i AS i, e {.*, embedding: null, embeddingB: null} AS node
