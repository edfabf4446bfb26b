// name: memory_vector_repair
// Removes the stored embeddings of a tenant that vector.similarity.cosine would refuse with
// "not a valid vector": NaN or infinite elements, a sum of squares outside
// [$minSquares, $maxSquares] (it overflows or vanishes in Neo4j's 32-bit arithmetic), or a
// dimension other than $dimensions (when given). Such vectors were accepted before graphmem
// checked them (or were written by hand), and one of them made every recall of its scopes
// fail. The record stays, found by full text and through the graph; its embedding goes and
// embeddingRemovedAt says when, so it can be found and embedded again.
// setup() runs it, and so does a recall that met such a vector.
// At most $limit records a call (call again until it returns fewer); returns their ids.
MATCH (m:Memory {tenant: $tenant})
WHERE {{vector(m)}} IS NOT NULL
WITH m, reduce(squares = 0.0, x IN {{vector(m)}} | squares + x * x) AS squares
WHERE isNaN(squares) OR squares < $minSquares OR squares > $maxSquares
   OR ($dimensions IS NOT NULL AND size({{vector(m)}}) <> $dimensions)
WITH m LIMIT $limit
REMOVE {{vector(m)}}
SET m.embeddingRemovedAt = $now
RETURN m.id AS id
