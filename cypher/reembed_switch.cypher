// name: reembed_switch
// The switch: the store's vectors are in slot $to from now on, in one transaction (every
// memory object reads the slot from this node; recall uses that slot's vector index). Only
// from slot $current, so a second run finds it done; returns the slot the store is in.
MATCH (s:GraphMemStore {id: 'store'})
WHERE s.vectorSlot = $current
SET s.vectorSlot = $to, s.reembedSwitchedAt = $now, s.vectorDimensions = s.reembedDimensions,
    s.vectorEmbedder = s.reembedEmbedder, s.reembeddedAt = $now
RETURN s.vectorSlot AS slot
