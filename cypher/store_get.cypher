// name: store_get
// The current values of LangGraph store items: for each row, the believed fact of predicate
// 'langgraph_item' stored exactly at row.scope whose subject is row.subject and whose valid
// time is open at $now (older values were closed by supersession, expired ones by their
// TTL). $rows: [{i, scope, subject}]
UNWIND $rows AS row
MATCH (m:Fact {tenant: $tenant, subject: row.subject, predicate: 'langgraph_item'})
WHERE m.scope = row.scope AND m.invalidatedAt IS NULL AND (m.validTo IS NULL OR m.validTo > $now)
RETURN row.i AS i, m.id AS id, m.scope AS scope, m.storeKey AS key, m.valueJson AS value, m.storeTtl AS ttl,
       m.storeCreatedAt AS created, m.createdAt AS updated
