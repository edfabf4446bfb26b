// fragment: embeddable
// Whether a memory __node__ is given a vector when written by a memory object with an
// embedder: one with text, or a window (:Chunk) of a long episode; not a LangGraph store
// item, which may be put without one (index=False, no marker: its vector is never owed).
((__node__.text IS NOT NULL OR __node__:Chunk) AND coalesce(__node__.predicate, '') <> 'langgraph_item')
