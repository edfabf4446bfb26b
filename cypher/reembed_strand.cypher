// name: reembed_strand
// Before a fresh re-embedding empties the slot it fills: the memories whose only vector is
// in that slot (none in the active one: written by a process still on the old embedder after
// an earlier switch, by a graphmem before one run at a time) are marked reembedPending, so
// the run embeds them from their text rather than leave them without a vector once that
// slot is emptied. Up to $limit of $tenant after $afterId, in id order; returns how many it
// marked and the last id it looked at.
MATCH (m:Memory {tenant: $tenant})
WHERE m.id > $afterId AND {{vector(m)}} IS NULL AND {{staging(m)}} IS NOT NULL
WITH m ORDER BY m.tenant, m.id LIMIT $limit
SET m.reembedPending = true
RETURN count(m) AS marked, max(m.id) AS last
