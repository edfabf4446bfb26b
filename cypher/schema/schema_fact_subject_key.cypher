// name: schema_fact_subject_key
// creates: fact_subject_key
// Facts by the folded form of their subject ($subjectKey: case and accents ignored), so
// history() and facts() find a literal subject by the name people type.
CREATE INDEX fact_subject_key IF NOT EXISTS FOR (m:Fact) ON (m.tenant, m.subjectKey)
