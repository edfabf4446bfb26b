// name: graph_walk_edges
// bench/graph_walk.py: every SPOKE, MENTIONS and NEXT edge of a tenant's memories, as pairs
// of ids (the episode-entity graph the PageRank walks).
MATCH (a:Memory {tenant: $tenant})-[r:SPOKE|MENTIONS|NEXT]->(b:Memory {tenant: $tenant})
RETURN a.id AS a, b.id AS b, type(r) AS type
