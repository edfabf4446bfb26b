// name: memory_evidence
// The evidence trail of one memory: what it cites and what that was derived from or cites
// in turn (CITES / DERIVED_FROM, up to three hops), the facts that corroborated it, and
// the records that superseded anything on the trail. Returns the nodes (without
// embeddings) and the edges as {source, target, type, reason, at}.
MATCH (root:Memory {tenant: $tenant, id: $id})
OPTIONAL MATCH p = (root)-[:CITES|DERIVED_FROM*1..3]->(:Memory {tenant: $tenant})
WHERE all(n IN nodes(p) WHERE n.tenant = $tenant)
WITH root, collect(p) AS paths
WITH root, reduce(acc = [], path IN paths | acc + relationships(path)) AS down
OPTIONAL MATCH (c:Memory {tenant: $tenant})-[k:CORROBORATES]->(root)
WITH root, down, collect(k) AS up
WITH root, down + up AS rels
WITH root, rels, reduce(acc = [root], r IN rels | acc + [startNode(r), endNode(r)]) AS trail
UNWIND trail AS t
OPTIONAL MATCH (newer:Memory {tenant: $tenant})-[s:SUPERSEDES]->(t)
WITH root, rels, collect(DISTINCT t) AS trail, collect(s) AS replaced
WITH root, rels + replaced AS rels, trail + [r IN replaced | startNode(r)] AS nodes
UNWIND nodes AS n
WITH rels, collect(DISTINCT n) AS nodes
UNWIND (CASE WHEN rels = [] THEN [null] ELSE rels END) AS r
WITH nodes, collect(DISTINCT r) AS rels
RETURN [n IN nodes | n {.*, embedding: null, embeddingB: null}] AS nodes,
       [r IN rels | {source: startNode(r).id, target: endNode(r).id, type: type(r), reason: r.reason, at: r.at}] AS edges
