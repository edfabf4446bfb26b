// name: store_version
// Records that the store's data follows schema version $version (after an upgrade step, or
// at once on a database graphmem had not written yet), creating the store's node with its
// vectors in slot $vectorSlot when it has none (a, or where the vector index says they are when the
// node was deleted by hand: executor.layout). A version is never lowered (two processes upgrading
// at once both end at the highest).
MERGE (s:GraphMemStore {id: 'store'})
ON CREATE SET s.createdAt = $now, s.vectorSlot = $vectorSlot
SET s.schemaVersion = CASE WHEN s.schemaVersion >= $version THEN s.schemaVersion ELSE $version END,
    s.upgradedAt = $now
RETURN s.schemaVersion AS version
