// fragment: recall_filter
// What recall may return of a memory __node__ (already known to be in the tenant's visible
// scopes): one of $kinds, a status of $statuses and a sensitivity of $sensitivities,
// believed at $asOf (or $includeInvalidated) and true at $validAt in valid time; a validTo
// recorded after $asOf was not yet believed then (closedAt), and an episode that happened
// after $validAt is left out. $userId, $agentId and $sessionId, when not null, keep only the
// records of that user, agent or conversation.
(__node__.kind IN $kinds
   AND __node__.status IN $statuses AND __node__.sensitivity IN $sensitivities
   AND __node__.createdAt <= $asOf
   AND ($includeInvalidated OR __node__.invalidatedAt IS NULL OR __node__.invalidatedAt > $asOf)
   AND (__node__.validFrom IS NULL OR __node__.validFrom <= $validAt)
   AND (__node__.validTo IS NULL OR __node__.validTo > $validAt OR __node__.closedAt > $asOf)
   AND (__node__.occurredAt IS NULL OR __node__.occurredAt <= $validAt)
   AND ($userId IS NULL OR __node__.userId = $userId)
   AND ($agentId IS NULL OR __node__.agentId = $agentId)
   AND ($sessionId IS NULL OR __node__.sessionId = $sessionId))
