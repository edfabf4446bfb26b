// name: schema_relates_fact
// creates: relates_fact_id
// Relationship index: the RELATES projection of a fact, found by the fact's id.
CREATE INDEX relates_fact_id IF NOT EXISTS FOR ()-[r:RELATES]-() ON (r.factId)
