// name: fact_supersede
// Contradiction rule 1 (contract §7.1) for new single-valued facts. For each row's fact n, the
// other currently believed, active, single-valued facts with the same subject and predicate,
// a different object and n's own scope (excluding this batch, $batchIds) are:
//   - still open, with a start that was only observed (validFromStated false: "true at least
//     since") no earlier than n's stated start: n is newer news of a change before that
//     observation, so the old value ends at n's start, its own start becomes unknown (null;
//     the observation is kept as observedFrom) and n SUPERSEDES it with reason 'changed';
//   - earlier and still valid when n starts: closed (validTo = n.validFrom), n SUPERSEDES it
//     with reason 'changed' -- the world changed, the old fact stays believed;
//   - starting at the same instant as n: invalidated with reason 'corrected' (two values for
//     one period: the newer statement wins);
//   - starting later than n (n is older news): the nearest one ends n's validity and
//     SUPERSEDES n.
// Records of people (provenance user, manual, human-correction) are touched only by a new
// record that is not automatic ($rows.explicit), and an automatic record never ends a
// person's record either way. A fact of another scope, an ancestor's or a descendant's, is
// never touched: scopes say who sees a record, not which claim is true, and a write changes
// nothing outside its own scope; a view of several scopes ranks their facts when it reads
// them (fragment fact_current, docs/design-notes.md#scope-chain-facts). Returns the ids
// whose times changed. The (tenant, subject, predicate) index is named: on a fresh store's
// statistics the planner was seen taking the (tenant, predicate) one, every fact of the
// predicate read per row (20x slower at 10,000).
UNWIND $rows AS row
MATCH (n:Fact {tenant: $tenant, id: row.id})
CALL (n, row) {
  OPTIONAL MATCH (o:Fact {tenant: $tenant, subject: n.subject, predicate: n.predicate})
  USING INDEX o:Fact(tenant, subject, predicate)
  WHERE o.id <> n.id AND NOT o.id IN $batchIds AND o.scope = n.scope
    AND o.invalidatedAt IS NULL AND o.status = 'active' AND o.singleValued = true
    AND o.object <> n.object
  RETURN collect(o) AS others
}
CALL (n, row, others) {
  UNWIND others AS o
  WITH n, o
  WHERE coalesce(n.validFromStated, true) AND NOT coalesce(o.validFromStated, true)
    AND o.validTo IS NULL AND o.validFrom >= n.validFrom
    AND (row.explicit OR o.provenance IN $automatic)
  SET o.observedFrom = o.validFrom, o.validFrom = null, o.validTo = n.validFrom, o.closedAt = $now
  CREATE (n)-[:SUPERSEDES {reason: 'changed', at: $now}]->(o)
  RETURN collect(o.id) AS backdated
}
CALL (n, row, others) {
  UNWIND others AS o
  WITH n, o
  WHERE o.validFrom < n.validFrom AND (o.validTo IS NULL OR o.validTo > n.validFrom)
    AND (row.explicit OR o.provenance IN $automatic)
  SET o.validTo = n.validFrom, o.closedAt = $now
  CREATE (n)-[:SUPERSEDES {reason: 'changed', at: $now}]->(o)
  RETURN collect(o.id) AS closed
}
CALL (n, row, others) {
  UNWIND others AS o
  WITH n, o
  WHERE o.validFrom = n.validFrom AND (row.explicit OR o.provenance IN $automatic)
  SET o.invalidatedAt = $now, o.invalidationReason = 'corrected'
  CREATE (n)-[:SUPERSEDES {reason: 'corrected', at: $now}]->(o)
  RETURN collect(o.id) AS replaced
}
CALL (n, others) {
  UNWIND others AS o
  WITH n, o
  WHERE o.validFrom > n.validFrom AND (n.validTo IS NULL OR n.validTo > o.validFrom)
    AND (NOT o.provenance IN $automatic OR n.provenance IN $automatic)
  WITH n, o ORDER BY o.validFrom ASC LIMIT 1
  SET n.validTo = o.validFrom, n.closedAt = $now
  CREATE (o)-[:SUPERSEDES {reason: 'changed', at: $now}]->(n)
  RETURN collect(n.id) AS shortened
}
RETURN backdated + closed + shortened AS closed, replaced
