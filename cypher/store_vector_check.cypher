// name: store_vector_check
// For graphmem setup --check, over every memory of every tenant (an operator's read): how
// many hold a vector in the active slot (`vector`) and in the other one (`staging`), how
// many have none in the active slot though they are owed one (`embeddable`, or marked
// reembedPending, or holding a vector in the other slot only: written without an embedder,
// their vector removed as one Neo4j cannot compare, or left behind by a re-embedding), and
// how many of those are stranded (marked reembedPending, or a vector in the other slot only).
MATCH (m:Memory)
WITH m, {{vector(m)}} IS NOT NULL AS active, {{staging(m)}} IS NOT NULL AS other
WITH active, other, m.reembedPending = true AS pending, {{embeddable(m)}} AS owed
RETURN count(CASE WHEN active THEN 1 END) AS active, count(CASE WHEN other THEN 1 END) AS other,
       count(CASE WHEN NOT active AND (owed OR pending OR other) THEN 1 END) AS missing,
       count(CASE WHEN NOT active AND (pending OR other) THEN 1 END) AS stranded
