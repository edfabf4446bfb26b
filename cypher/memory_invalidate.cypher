// name: memory_invalidate
// Invalidates the given believed memories in transaction time with $reason and, when $by
// names a record, writes SUPERSEDES from it to each. Returns the ids invalidated.
UNWIND $ids AS wanted
MATCH (o:Memory {tenant: $tenant, id: wanted})
WHERE o.invalidatedAt IS NULL
SET o.invalidatedAt = $now, o.invalidationReason = $reason
WITH o
OPTIONAL MATCH (n:Memory {tenant: $tenant, id: $by})
FOREACH (_ IN CASE WHEN n IS NULL THEN [] ELSE [1] END |
  CREATE (n)-[:SUPERSEDES {reason: $reason, at: $now, note: $note}]->(o))
RETURN o.id AS id
