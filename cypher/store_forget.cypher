// name: store_forget
// Deletes LangGraph store items the bitemporal way: the current value of each (scope,
// subject) row is invalidated with reason 'forgotten' (the older values stay as history).
// $rows: [{scope, subject}]. Returns the ids forgotten.
UNWIND $rows AS row
MATCH (m:Fact {tenant: $tenant, subject: row.subject, predicate: 'langgraph_item'})
WHERE m.scope = row.scope AND m.invalidatedAt IS NULL AND (m.validTo IS NULL OR m.validTo > $now)
SET m.invalidatedAt = $now, m.invalidationReason = 'forgotten'
RETURN m.id AS id
