// name: store_slot
// setup() records that the store's vectors are in slot $to, not in $current, which the
// store's node names (it was changed by hand or restored from elsewhere: every memory's
// vector and the vector index are in $to). Only while no re-embedding is recorded or
// claimed (a run under way moves the slot itself); returns the node's slot.
MATCH (s:GraphMemStore {id: 'store'})
WHERE s.vectorSlot = $current AND s.reembedStartedAt IS NULL AND s.reembedRun IS NULL
SET s.vectorSlot = $to
RETURN s.vectorSlot AS slot
