// name: reembed_switch
// The switch: the store's vectors are in slot $to from now on, in one transaction (every
// memory object reads the slot from this node; recall uses that slot's vector index). First
// it takes every writers' lock stripe (write_guard), so it waits for the writes under way
// that read the old slot to commit, and every later write reads the new one. Only from slot
// $current and by run $run, the one holding the claim, so a second run finds it done; the
// new embedder's probe vector is kept as the store's (vectorProbe: a memory object with
// another embedder of the same dimension is told). Returns the slot the store is in.
OPTIONAL MATCH (w:GraphMemWriters)
CALL (w) {
  WITH w
  WHERE w IS NOT NULL
  SET w._lock = true
  REMOVE w._lock
}
WITH count(w) AS locked
MATCH (s:GraphMemStore {id: 'store'})
WHERE s.vectorSlot = $current AND s.reembedRun = $run
SET s.vectorSlot = $to, s.reembedSwitchedAt = $now, s.vectorDimensions = s.reembedDimensions,
    s.vectorEmbedder = s.reembedEmbedder, s.vectorProbe = s.reembedProbe, s.reembeddedAt = $now
RETURN s.vectorSlot AS slot
