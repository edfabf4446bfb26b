// name: store_layout
// The store's own node (:GraphMemStore {id: 'store'}, no tenant): the schema version its data
// follows, the slot its vectors are in with the embedder a re-embedding put there (its name,
// dimension, probe vector and when: none for a store never re-embedded), and the
// re-embedding under way if any (with the run that holds it), whether a run holds the claim
// (claimed before it records its start: reembed_claimed); with whether the database
// holds any memory (a store without the node but with memories was written before versions
// were recorded: version 1). One row, its values null without the node.
OPTIONAL MATCH (s:GraphMemStore {id: 'store'})
RETURN s.schemaVersion AS version, s.vectorSlot AS slot, s IS NOT NULL AS recorded,
       CASE WHEN s.vectorProbe IS NULL THEN null
            ELSE {embedder: s.vectorEmbedder, dimensions: s.vectorDimensions, probe: s.vectorProbe,
                  at: toString(s.reembeddedAt)} END AS active,
       CASE WHEN s.reembedStartedAt IS NULL THEN null
            ELSE {slot: s.reembedSlot, dimensions: s.reembedDimensions, embedder: s.reembedEmbedder,
                  startedAt: toString(s.reembedStartedAt), switchedAt: toString(s.reembedSwitchedAt),
                  tenants: s.reembedTenants, run: s.reembedRun, host: s.reembedHost, pid: s.reembedPid,
                  beatAt: toString(s.reembedBeatAt)} END AS reembed,
       s.reembedRun IS NOT NULL AS claimed,
       EXISTS { MATCH (:Memory) } AS used
