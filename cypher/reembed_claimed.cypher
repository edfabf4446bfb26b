// name: reembed_claimed
// The second half of claiming the re-embedding: records run $run (on $host, process $pid) as
// the one under way, its progress at $now, and makes the writers' lock stripes
// (:GraphMemWriters, $stripes of them: a writer takes one, the switch takes them all, so no
// write that read the old slot can commit after the switch: write_guard).
MATCH (s:GraphMemStore {id: 'store'})
SET s.reembedRun = $run, s.reembedHost = $host, s.reembedPid = $pid, s.reembedBeatAt = $now
WITH s
UNWIND range(0, $stripes - 1) AS stripe
MERGE (:GraphMemWriters {stripe: stripe})
RETURN count(*) AS stripes
