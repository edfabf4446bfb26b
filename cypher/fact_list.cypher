// name: fact_list
// Facts visible in a scope chain as the memory believed them at $asOf (transaction time)
// and as true at $validAt (valid time). A validTo set after $asOf was not yet believed
// then, so such a fact still counts as open (closedAt records when validTo was set).
// Optional filters: $subject, $predicate; $includeInvalidated keeps invalidated records.
MATCH (m:Memory {tenant: $tenant})
WHERE m.scope IN $chain AND m:Fact
  AND ($subject IS NULL OR m.subject = $subject)
  AND ($predicate IS NULL OR m.predicate = $predicate)
  AND m.status <> 'rejected'
  AND m.createdAt <= $asOf
  AND ($includeInvalidated OR m.invalidatedAt IS NULL OR m.invalidatedAt > $asOf)
  AND m.validFrom <= $validAt
  AND (m.validTo IS NULL OR m.validTo > $validAt OR m.closedAt > $asOf)
RETURN m {.*, embedding: null} AS node
ORDER BY m.validFrom, m.createdAt, m.id
