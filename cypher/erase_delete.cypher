// name: erase_delete
// Last step of an erase batch: deletes every memory labelled :Erasing in the tenant with
// its edges, embeddings, the RELATES projections of erased facts and the windows of erased
// episodes (:Chunk, not counted as memories), and lowers the scopes' memory counters to
// match. Returns how many went of each kind ($kinds: [{kind, n}]) and how many windows; no
// row when nothing was labelled.
MATCH (m:Erasing {tenant: $tenant})
WITH collect(m) AS doomed
CALL (doomed) {
  UNWIND doomed AS m
  WITH m.scope AS path, count(*) AS n
  MATCH (s:Scope {tenant: $tenant, path: path})
  SET s._lock = true
  SET s.memories = coalesce(s.memories, n) - n
  REMOVE s._lock
}
CALL (doomed) {
  UNWIND doomed AS m
  OPTIONAL MATCH (m)-[:ABOUT {role: 'subject'}]->(:Entity)-[r:RELATES {factId: m.id}]->()
  DELETE r
}
CALL (doomed) {
  UNWIND doomed AS m
  OPTIONAL MATCH (window:Chunk)-[:PART_OF]->(m)
  DETACH DELETE window
  RETURN count(window) AS windows
}
UNWIND doomed AS m
WITH windows, m, coalesce(m.kind, 'memory') AS kind
DETACH DELETE m
WITH windows, kind, count(*) AS n
RETURN windows, collect({kind: kind, n: n}) AS kinds
