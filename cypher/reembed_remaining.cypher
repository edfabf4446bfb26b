// name: reembed_remaining
// How many memories of the tenants $tenants (null: every tenant) have a vector in the slot
// being replaced (or are marked reembedPending: reembed_strand, or have none at all though
// they are owed one: `embeddable`) and none yet in the other: what a re-embedding still has
// to do.
MATCH (m:Memory)
WHERE ({{vector(m)}} IS NOT NULL OR m.reembedPending = true OR {{embeddable(m)}})
  AND {{staging(m)}} IS NULL
  AND ($tenants IS NULL OR m.tenant IN $tenants)
RETURN count(m) AS remaining
