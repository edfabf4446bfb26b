// name: reembed_probe
// The probe vector of the embedder the re-embedding under way was started with.
MATCH (s:GraphMemStore {id: 'store'})
RETURN s.reembedProbe AS probe
