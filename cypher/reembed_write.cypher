// name: reembed_write
// Stores a re-embedding's new vectors ($rows: tenant, id, vector) in the slot it fills
// (`staging`), on memories that still have their old one (a memory forgotten or erased
// meanwhile is left alone), and records run $run's progress at $now. Only while $run holds
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
  WHERE {{vector(m)}} IS NOT NULL OR m.reembedPending = true
  SET {{staging(m)}} = row.vector
  REMOVE m.reembedPending
  RETURN count(m) AS written
}
RETURN s IS NOT NULL AS owned, written
