// name: floor_indexed_clear
// Deletes up to $limit :FloorIndexed nodes left by the write benchmark; returns how many.
MATCH (n:FloorIndexed)
WITH n LIMIT $limit
DETACH DELETE n
RETURN count(*) AS deleted
