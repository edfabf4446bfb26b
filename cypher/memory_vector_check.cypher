// name: memory_vector_check
// For setup(): how many memories of $tenant have no vector in the active slot though they
// are owed one (store_vector_check's `missing`, for one tenant: an index seek on it), and how
// many of those are stranded (marked reembedPending, or a vector in the other slot only).
MATCH (m:Memory {tenant: $tenant})
WHERE {{vector(m)}} IS NULL AND ({{embeddable(m)}} OR m.reembedPending = true OR {{staging(m)}} IS NOT NULL)
RETURN count(m) AS missing, count(CASE WHEN m.reembedPending = true OR {{staging(m)}} IS NOT NULL THEN 1 END) AS stranded
