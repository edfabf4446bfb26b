// name: reembed_load_store
// After a re-embedding under load (bench/reembed.py --under-load): of the whole store, how
// many memories there are, how many have no vector in the active slot's property $property,
// how many still hold one in the other slot's $other or are marked reembedPending; and when
// the switch was (epoch milliseconds, the store's node: null for a store never re-embedded).
MATCH (m:Memory)
WITH count(m) AS memories, count(CASE WHEN m[$property] IS NULL THEN 1 END) AS unembedded,
     count(m[$other]) AS leftover, count(CASE WHEN m.reembedPending = true THEN 1 END) AS pending
OPTIONAL MATCH (s:GraphMemStore {id: 'store'})
RETURN memories, unembedded, leftover, pending, s.reembeddedAt.epochMillis AS switchedAt
