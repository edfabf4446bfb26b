// name: store_layout
// The store's own node (:GraphMemStore {id: 'store'}, no tenant): the schema version its data
// follows, the slot its vectors are in, and the re-embedding under way if any; with whether
// the database holds any memory (a store without the node but with memories was written
// before versions were recorded: version 1). One row, its values null without the node.
OPTIONAL MATCH (s:GraphMemStore {id: 'store'})
RETURN s.schemaVersion AS version, s.vectorSlot AS slot,
       CASE WHEN s.reembedStartedAt IS NULL THEN null
            ELSE {slot: s.reembedSlot, dimensions: s.reembedDimensions, embedder: s.reembedEmbedder,
                  startedAt: toString(s.reembedStartedAt), switchedAt: toString(s.reembedSwitchedAt),
                  tenants: s.reembedTenants} END AS reembed,
       EXISTS { MATCH (:Memory) } AS used
