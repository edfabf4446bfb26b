// fragment: graph_visible
// Whether a memory __node__ of the tenant belongs in the analysis graph: stored in one of
// the visible scopes $chain, one of $kinds, recorded by $asOf, and believed and valid as
// fragment believed_at says, and, unless $includeInvalidated, not a single-valued fact
// another scope of the chain outranks in this view (fragment fact_current); $anyTime keeps
// every version recorded by $asOf, whatever its valid time or belief. Every status is kept:
// quarantined and rejected records are part of the picture.
(__node__.scope IN $chain AND __node__.kind IN $kinds
   AND __node__.createdAt <= $asOf
   AND ($anyTime OR ({{believed_at(__node__)}} AND ($includeInvalidated OR {{fact_current(__node__)}}))))
