// name: reembed_done
// The re-embedding is over (switched and the old vectors removed, or abandoned with its
// vectors removed): its record on the store's node is cleared, the claim with it.
MATCH (s:GraphMemStore {id: 'store'})
REMOVE s.reembedSlot, s.reembedDimensions, s.reembedEmbedder, s.reembedProbe, s.reembedTenants,
       s.reembedStartedAt, s.reembedSwitchedAt, s.reembedRun, s.reembedHost, s.reembedPid, s.reembedBeatAt
RETURN s.vectorSlot AS slot
