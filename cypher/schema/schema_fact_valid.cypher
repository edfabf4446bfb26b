// name: schema_fact_valid
// creates: fact_valid_from
// Range index: valid time (valid_at queries).
CREATE INDEX fact_valid_from IF NOT EXISTS FOR (n:Fact) ON (n.validFrom)
