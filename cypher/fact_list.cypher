// name: fact_list
// Facts visible in a scope chain as the memory believed them at $asOf (transaction time)
// and as true at $validAt (valid time). A validTo set after $asOf was not yet believed
// then, so such a fact still counts as open (closedAt records when validTo was set).
// Optional filters: $subject (an id, a literal or an entity's name or alias: fragment
// subject_match), $predicate; $includeInvalidated keeps invalidated records, and also the
// single-valued facts another scope of the chain outranks in this view (fragment
// fact_current, $automatic: the provenances of machine-made records), which are otherwise
// left out: the view has one current value per subject and predicate.
// Each fact is returned as it was believed at $asOf: a validTo or an invalidation recorded
// later is not shown. The index hint keeps the lookup on (tenant, scope): with a chain of
// two or more scopes Neo4j chose the createdAt range index and read every memory (0.1-0.2 s
// at 50k memories).
MATCH (m:Memory {tenant: $tenant})
USING INDEX m:Memory(tenant, scope)
WHERE m.scope IN $chain AND m:Fact
  AND {{subject_match(m)}}
  AND ($predicate IS NULL OR m.predicate = $predicate)
  AND m.status <> 'rejected'
  AND {{believed_at(m)}}
  AND ($includeInvalidated OR {{fact_current(m)}})
WITH m, m.closedAt > $asOf AS closedLater, m.invalidatedAt > $asOf AS invalidatedLater
RETURN m {.*, embedding: null, embeddingB: null,
          validTo: CASE WHEN closedLater THEN null ELSE m.validTo END,
          closedAt: CASE WHEN closedLater THEN null ELSE m.closedAt END,
          invalidatedAt: CASE WHEN invalidatedLater THEN null ELSE m.invalidatedAt END,
          invalidationReason: CASE WHEN invalidatedLater THEN null ELSE m.invalidationReason END} AS node
ORDER BY coalesce(m.validFrom, m.validTo), m.createdAt, m.id
