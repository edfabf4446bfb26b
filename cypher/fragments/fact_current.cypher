// fragment: fact_current
// Whether the memory __node__, already known to be visible in the view $chain and believed
// and valid there (fragment believed_at), is a current answer of that view: every record is
// but a single-valued fact that another single-valued fact of the view outranks. Scopes say
// who sees a record, not which claim is true, so a write never closes a fact of another scope
// (contract §7.1); the view settles it instead, at $validAt as the memory believed at $asOf
// (docs/design-notes.md#scope-chain-facts). A rival is a believed, active, single-valued fact
// with the same subject and predicate, stored in another scope of $chain (two facts of one
// scope were settled when the later was written), valid at $validAt. It outranks __node__ as
// the later of the two would have superseded the earlier in one scope: the later start wins
// (a start unknown counts as the earliest; the same start: the later recorded, then the
// greater id), but a start that was only observed loses to a stated one recorded after it
// that starts no later (time-model.md); and an automatic record ($automatic) never outranks
// a person's. Read through the (tenant, subject, predicate) index, once per single-valued
// fact of a view of two scopes or more: nothing else pays (a view of one scope has no rival).
(CASE WHEN size($chain) < 2 OR __node__.singleValued IS NULL OR __node__.singleValued <> true
        OR __node__.subject IS NULL OR __node__.predicate IS NULL THEN true
      ELSE NOT EXISTS {
        MATCH (rival:Fact {tenant: $tenant, subject: __node__.subject, predicate: __node__.predicate})
        USING INDEX rival:Fact(tenant, subject, predicate)
        WHERE rival.scope IN $chain AND rival.scope <> __node__.scope
          AND rival.singleValued = true AND rival.status = 'active'
          AND rival.createdAt <= $asOf AND (rival.invalidatedAt IS NULL OR rival.invalidatedAt > $asOf)
          AND (rival.validFrom IS NULL OR rival.validFrom <= $validAt)
          AND (rival.validTo IS NULL OR rival.validTo > $validAt OR rival.closedAt > $asOf)
          AND (NOT rival.provenance IN $automatic OR __node__.provenance IN $automatic)
          AND CASE
                // the rival was recorded later: it wins unless it starts earlier, but a stated
                // start beats an open start that was only observed
                WHEN rival.createdAt > __node__.createdAt
                     OR (rival.createdAt = __node__.createdAt AND rival.id > __node__.id)
                THEN __node__.validFrom IS NULL OR rival.validFrom >= __node__.validFrom
                     OR (coalesce(rival.validFromStated, true) AND NOT coalesce(__node__.validFromStated, true)
                         AND (__node__.validTo IS NULL OR coalesce(__node__.closedAt > $asOf, false)))
                // the rival was recorded earlier: it wins only by starting later, and not as an
                // observed open start against __node__'s stated one
                ELSE rival.validFrom IS NOT NULL AND (__node__.validFrom IS NULL OR rival.validFrom > __node__.validFrom)
                     AND NOT (coalesce(__node__.validFromStated, true) AND NOT coalesce(rival.validFromStated, true)
                              AND (rival.validTo IS NULL OR coalesce(rival.closedAt > $asOf, false)))
              END
      } END)
