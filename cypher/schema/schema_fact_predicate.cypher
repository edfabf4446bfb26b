// name: schema_fact_predicate
// creates: fact_tenant_predicate
// Range index: facts of a tenant by predicate (the LangGraph store's items, predicate
// 'langgraph_item', are searched and listed by it).
CREATE INDEX fact_tenant_predicate IF NOT EXISTS FOR (n:Fact) ON (n.tenant, n.predicate)
