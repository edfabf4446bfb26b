// name: reembed_start
// Records on the store's node that a re-embedding fills slot $to with vectors of $dimensions
// dimensions from $embedder (its vector of a probe sentence, $probe, tells a later run whether
// it has the same embedder and may continue), for the tenants $tenants (null: every tenant).
// Only while the store's vectors are in the other slot; returns the node's slot.
MATCH (s:GraphMemStore {id: 'store'})
WHERE s.vectorSlot <> $to
SET s.reembedSlot = $to, s.reembedDimensions = $dimensions, s.reembedEmbedder = $embedder,
    s.reembedProbe = $probe, s.reembedTenants = $tenants, s.reembedStartedAt = $now,
    s.reembedSwitchedAt = null
RETURN s.vectorSlot AS slot
