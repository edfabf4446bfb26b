// name: reembed_claim
// The first half of claiming the re-embedding (one run at a time, from any process): takes the
// store's node's write lock until the transaction ends (the second half, reembed_claimed, runs
// in the same transaction once the caller has decided), and returns the run holding the claim
// if any (its id, host, process id, last progress) and the re-embedding recorded, with whether
// the claim's last progress is older than $staleBefore. No row without the store's node.
MATCH (s:GraphMemStore {id: 'store'})
SET s._lock = true
REMOVE s._lock
RETURN s.reembedRun AS run, s.reembedHost AS host, s.reembedPid AS pid,
       toString(s.reembedBeatAt) AS beatAt, coalesce(s.reembedBeatAt < $staleBefore, true) AS stale,
       s.vectorSlot AS slot, s.reembedStartedAt IS NOT NULL AS recorded
