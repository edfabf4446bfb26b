// name: reembed_write
// Stores a re-embedding's new vectors ($rows: tenant, id, vector) in the slot it fills
// (`staging`), on memories that still have their old one or are owed one (reembed_page; a
// memory erased meanwhile is left alone; a vector removed as one Neo4j cannot compare is
// replaced, and its embeddingRemovedAt goes), and records run $run's progress at $now. Only while $run holds
// the claim (a run presumed dead and taken over writes nothing more); returns whether it
// does and how many it wrote.
OPTIONAL MATCH (s:GraphMemStore {id: 'store'})
WHERE s.reembedRun = $run
SET s.reembedBeatAt = $now
WITH s
CALL (s) {
  WITH s
  WHERE s IS NOT NULL
  UNWIND $rows AS row
  MATCH (m:Memory {tenant: row.tenant, id: row.id})
  WHERE {{vector(m)}} IS NOT NULL OR m.reembedPending = true OR {{embeddable(m)}}
  SET {{staging(m)}} = row.vector
  REMOVE m.reembedPending, m.embeddingRemovedAt
  RETURN count(m) AS written
}
RETURN s IS NOT NULL AS owned, written
