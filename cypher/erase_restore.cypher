// name: erase_restore
// Third step of an erase batch, before anything is deleted: a fact the erased facts had
// superseded is given back what they took from it, as if they had never been said. One
// erased fact closed it ('changed': its valid time ended at the erased fact's start, maybe
// its start moved to observedFrom) or invalidated it ('corrected': same start). Back: its
// start, and either its open end (current again) or, when a surviving fact had in turn
// superseded the erased one (over erased facts only), the end that fact gives it, with
// that fact SUPERSEDING it instead. Returns the ids whose times changed (for their RELATES).
MATCH (f:Fact:Erasing {tenant: $tenant})-[s:SUPERSEDES]->(p:Fact {tenant: $tenant})
WHERE NOT p:Erasing
OPTIONAL MATCH path = (g:Fact {tenant: $tenant})-[:SUPERSEDES*1..8]->(f)
WHERE NOT g:Erasing AND all(x IN nodes(path)[1..] WHERE x:Erasing)
WITH p, s, g ORDER BY g.validFrom ASC
WITH p, s, collect(g)[0] AS next
SET p.validFrom = CASE WHEN p.validFrom IS NULL AND p.observedFrom IS NOT NULL THEN p.observedFrom ELSE p.validFrom END,
    p.observedFrom = CASE WHEN p.validFrom IS NULL THEN null ELSE p.observedFrom END
WITH p, s, next
SET p.invalidatedAt = CASE WHEN s.reason = 'corrected' AND p.invalidationReason = 'corrected' THEN null
                          ELSE p.invalidatedAt END,
    p.invalidationReason = CASE WHEN s.reason = 'corrected' AND p.invalidationReason = 'corrected' THEN null
                               ELSE p.invalidationReason END
WITH p, s, next
SET p.validTo = CASE WHEN s.reason = 'changed' THEN next.validFrom ELSE p.validTo END,
    p.closedAt = CASE WHEN s.reason = 'changed' AND next IS NULL THEN null ELSE p.closedAt END
WITH p, s, next
CALL (p, s, next) {
  WITH p, s, next WHERE next IS NOT NULL AND NOT EXISTS { (next)-[:SUPERSEDES]->(p) }
  CREATE (next)-[:SUPERSEDES {reason: s.reason, at: s.at}]->(p)
}
RETURN collect(DISTINCT p.id) AS restored
