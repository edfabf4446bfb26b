// name: reembed_beat
// Run $run's progress at $now (while it waits for the new index to be built): returns whether
// it still holds the claim.
OPTIONAL MATCH (s:GraphMemStore {id: 'store'})
WHERE s.reembedRun = $run
SET s.reembedBeatAt = $now
RETURN s IS NOT NULL AS owned
