// fragment: believed_at
// Whether a memory __node__ was recorded by $asOf, still believed then (or
// $includeInvalidated), and true at $validAt in valid time: a validTo recorded after $asOf
// (closedAt) was not yet believed then, and an episode that happened after $validAt is
// left out. The time-travel test shared by recall, facts and the analysis graph.
(__node__.createdAt <= $asOf
   AND ($includeInvalidated OR __node__.invalidatedAt IS NULL OR __node__.invalidatedAt > $asOf)
   AND (__node__.validFrom IS NULL OR __node__.validFrom <= $validAt)
   AND (__node__.validTo IS NULL OR __node__.validTo > $validAt OR __node__.closedAt > $asOf)
   AND (__node__.occurredAt IS NULL OR __node__.occurredAt <= $validAt))
