// name: store_history
// Every value a LangGraph store item ever had (the facts of one subject at one scope),
// believed or not, oldest valid time first: its JSON value, its valid time, when it was
// recorded and, if it was, when and why it stopped being believed.
MATCH (m:Fact {tenant: $tenant, subject: $subject, predicate: 'langgraph_item'})
WHERE m.scope = $scope
RETURN m.id AS id, m.valueJson AS value, m.validFrom AS validFrom, m.validTo AS validTo,
       m.createdAt AS recordedAt, m.invalidatedAt AS invalidatedAt, m.invalidationReason AS reason
ORDER BY m.validFrom, m.createdAt, m.id
