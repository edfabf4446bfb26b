// fragment: recall_filter
// What recall may return of a memory __node__ (already known to be in the tenant's visible
// scopes): one of $kinds, a status of $statuses and a sensitivity of $sensitivities,
// believed and valid as fragment believed_at says, and, unless $includeInvalidated, not a
// single-valued fact that another scope of the chain outranks in this view (fragment
// fact_current). $whose holds a user, an agent and a conversation id, in that order; each that
// is not blank keeps only the records of that user, agent or conversation (one list of three
// strings whatever is asked: a null or a longer id would be another plan,
// docs/design-notes.md#recall-parameter-buckets).
(__node__.kind IN $kinds
   AND __node__.status IN $statuses AND __node__.sensitivity IN $sensitivities
   AND {{believed_at(__node__)}}
   AND ($includeInvalidated OR {{fact_current(__node__)}})
   AND ($whose[0] = '' OR __node__.userId = $whose[0])
   AND ($whose[1] = '' OR __node__.agentId = $whose[1])
   AND ($whose[2] = '' OR __node__.sessionId = $whose[2]))
