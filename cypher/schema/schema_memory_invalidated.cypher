// name: schema_memory_invalidated
// creates: memory_invalidated
// Range index: invalidation time.
CREATE INDEX memory_invalidated IF NOT EXISTS FOR (n:Memory) ON (n.invalidatedAt)
