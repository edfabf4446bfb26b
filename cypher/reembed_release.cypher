// name: reembed_release
// A run that stops without finishing (an error, Ctrl-C) gives its claim back, so the next run
// need not wait for it to go stale; what it wrote stays for that run to continue. Only the
// claim of run $run: one that another run has taken over is left alone.
MATCH (s:GraphMemStore {id: 'store'})
WHERE s.reembedRun = $run
REMOVE s.reembedRun, s.reembedHost, s.reembedPid, s.reembedBeatAt
RETURN s.vectorSlot AS slot
