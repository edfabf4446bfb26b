// name: write_guard
// The first statement of every write transaction: takes the write lock of the writers' lock
// stripe $stripe (one of a few: writers rarely wait for each other) until the transaction
// ends, then reads the slot the store's vectors are in. A re-embedding's switch takes every
// stripe before it moves the slot, so a write that read the old slot commits before the
// switch (and is caught up after it), and one that begins after reads the new slot (the
// caller compares it with the slot it writes to). No stripes before a re-embedding first
// claimed the store: no switch can happen then. `slot` is null without the store's node.
OPTIONAL MATCH (w:GraphMemWriters {stripe: $stripe})
CALL (w) {
  WITH w
  WHERE w IS NOT NULL
  SET w._lock = true
  REMOVE w._lock
}
WITH count(w) AS locked
OPTIONAL MATCH (s:GraphMemStore {id: 'store'})
RETURN locked, s.vectorSlot AS slot
