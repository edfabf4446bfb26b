// fragment: recall_filter
// What recall may return of a memory __node__ (already known to be in the tenant's visible
// scopes): one of $kinds, a status of $statuses and a sensitivity of $sensitivities,
// believed and valid as fragment believed_at says, and, unless $includeInvalidated, not a
// single-valued fact that another scope of the chain outranks in this view (fragment
// fact_current). $userId, $agentId and $sessionId, when not null, keep only the records of
// that user, agent or conversation.
(__node__.kind IN $kinds
   AND __node__.status IN $statuses AND __node__.sensitivity IN $sensitivities
   AND {{believed_at(__node__)}}
   AND ($includeInvalidated OR {{fact_current(__node__)}})
   AND ($userId IS NULL OR __node__.userId = $userId)
   AND ($agentId IS NULL OR __node__.agentId = $agentId)
   AND ($sessionId IS NULL OR __node__.sessionId = $sessionId))
