// name: reembed_clear
// Removes the vectors of the slot this version names (`vector`: a store item's several
// vectors too) from up to $limit memories of $tenant after $afterId, in id order: after a
// switch, the old slot's, from memories whose new vector is in place (run in the old slot's
// version); before a fresh re-embedding, with $all, every vector an abandoned one (or a
// writer on the old slot) left in the slot it fills (run in that slot's version). Returns
// how many it removed and the last id it looked at (null: the tenant is done).
MATCH (m:Memory {tenant: $tenant})
WHERE m.id > $afterId AND {{vector(m)}} IS NOT NULL AND ($all OR {{staging(m)}} IS NOT NULL)
WITH m ORDER BY m.tenant, m.id LIMIT $limit
REMOVE {{vector(m)}}, {{store_vectors(m)}}
RETURN count(m) AS cleared, max(m.id) AS last
