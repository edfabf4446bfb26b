// name: memory_forget
// Marks believed memories visible in a scope chain as forgotten (transaction time, reason
// 'forgotten'); they stay as tombstones so later extraction does not restate them.
// Selects by $id, by normalised text ($textKey), by $subject (an id, a literal or an
// entity's name or alias: fragment subject_match) and/or $predicate (all given filters must
// match). Returns the ids forgotten.
MATCH (m:Memory {tenant: $tenant})
WHERE m.scope IN $chain AND m.invalidatedAt IS NULL
  AND ($id IS NULL OR m.id = $id)
  AND ($textKey IS NULL OR m.textKey = $textKey)
  AND {{subject_match(m)}}
  AND ($predicate IS NULL OR m.predicate = $predicate)
SET m.invalidatedAt = $now, m.invalidationReason = 'forgotten'
RETURN m.id AS id
