// fragment: graph_visible
// Whether a memory __node__ of the tenant belongs in the analysis graph: stored in one of
// the visible scopes $chain, one of $kinds, recorded by $asOf and still believed then (or
// $includeInvalidated), and true at $validAt in valid time (a validTo recorded after
// $asOf was not yet believed then; an episode that happened after $validAt is left out).
// $anyTime keeps every version recorded by $asOf, whatever its valid time or belief.
// Every status is kept: quarantined and rejected records are part of the picture.
(__node__.scope IN $chain AND __node__.kind IN $kinds
   AND __node__.createdAt <= $asOf
   AND ($anyTime
        OR (($includeInvalidated OR __node__.invalidatedAt IS NULL OR __node__.invalidatedAt > $asOf)
            AND (__node__.validFrom IS NULL OR __node__.validFrom <= $validAt)
            AND (__node__.validTo IS NULL OR __node__.validTo > $validAt OR __node__.closedAt > $asOf)
            AND (__node__.occurredAt IS NULL OR __node__.occurredAt <= $validAt))))
