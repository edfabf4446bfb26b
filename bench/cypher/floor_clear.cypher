// name: floor_clear
// Deletes up to $limit :Floor nodes left by the write benchmark; returns how many.
MATCH (n:Floor)
WITH n LIMIT $limit
DETACH DELETE n
RETURN count(*) AS deleted
