// name: schema_memory_created
// creates: memory_created
// Range index: transaction time (as_of queries, recency).
CREATE INDEX memory_created IF NOT EXISTS FOR (n:Memory) ON (n.createdAt)
