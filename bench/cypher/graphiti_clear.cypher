// name: graphiti_clear
// Deletes up to $limit of the benchmark's Graphiti nodes (group $group) with their edges;
// returns how many were deleted (the caller repeats until none are left).
MATCH (n {group_id: $group})
WITH n LIMIT $limit
DETACH DELETE n
RETURN count(*) AS deleted
