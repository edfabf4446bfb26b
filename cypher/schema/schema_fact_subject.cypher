// name: schema_fact_subject
// creates: fact_tenant_subject_predicate
// Range index: facts by subject and predicate (supersession, history).
CREATE INDEX fact_tenant_subject_predicate IF NOT EXISTS FOR (n:Fact) ON (n.tenant, n.subject, n.predicate)
