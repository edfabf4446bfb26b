// name: store_sweep
// One batch of the LangGraph store's TTL sweep, a hard delete: an item (the
// 'langgraph_item' facts of one subject at one scope) at $prefix or below it ($prefix null:
// the whole tenant) whose latest value has a TTL (storeTtl), is believed and whose valid
// time ended at or before $now goes for good with every value it ever had (its history),
// their edges, and the scopes' memories counters lowered to match. An item with a later
// value, or whose latest value was forgotten (a delete), is left alone. At most $limit
// items per call; returns how many items and how many facts went (0 and 0: none left).
MATCH (m:Fact {tenant: $tenant, predicate: 'langgraph_item'})
WHERE ($prefix IS NULL OR m.scope = $prefix OR m.scope STARTS WITH $prefix + '/')
  AND m.storeTtl IS NOT NULL AND m.invalidatedAt IS NULL AND m.validTo <= $now
CALL (m) {
  MATCH (v:Fact {tenant: $tenant, subject: m.subject, predicate: 'langgraph_item'})
  USING INDEX v:Fact(tenant, subject, predicate)
  WHERE v.scope = m.scope
  RETURN collect(v) AS versions, max(v.createdAt) AS latest
}
WITH m, versions, latest
WHERE latest = m.createdAt
LIMIT $limit
WITH count(m) AS items, reduce(acc = [], vs IN collect(versions) | acc + vs) AS doomed
CALL (doomed) {
  UNWIND doomed AS v
  WITH v.scope AS path, count(*) AS n
  MATCH (s:Scope {tenant: $tenant, path: path})
  SET s._lock = true
  SET s.memories = coalesce(s.memories, n) - n
  REMOVE s._lock
}
CALL (doomed) {
  UNWIND doomed AS v
  DETACH DELETE v
}
RETURN items, size(doomed) AS facts
