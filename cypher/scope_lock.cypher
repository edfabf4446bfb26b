// name: scope_lock
// Takes the write lock of a tenant's root :Scope $path (creating it if missing) until the
// transaction ends. Entity upserts that would create take it first, so a create in a scope
// and one in its ancestor or descendant cannot both miss each other: the second waits,
// then reads what the first committed (docs/design-notes.md#entity-scope-promotion).
MERGE (s:Scope {tenant: $tenant, path: $path})
  ON CREATE SET s.name = $path, s.memories = 0
SET s._lock = true
REMOVE s._lock
