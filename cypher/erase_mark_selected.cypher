// name: erase_mark_selected
// First step of one erase batch (all steps run in one transaction, so the temporary
// :Erasing label is never seen outside it): labels :Erasing at most $limit of the tenant's
// memories the request names (fragment erase_selected; episode windows, :Chunk, go later
// with their episode), and at most $limit orphans: insights, summaries and induced
// procedures left with no CITES or DERIVED_FROM edge at all (their evidence was erased
// before erase followed derivations, or by curation), which exist only as derivations.
// Returns how many of each were labelled; the caller repeats while either reaches $limit.
CALL () {
  MATCH (m:Memory {tenant: $tenant})
  WHERE NOT m:Chunk AND {{erase_selected(m)}}
  WITH m LIMIT $limit
  SET m:Erasing
  RETURN count(m) AS selected
}
CALL () {
  CALL () {
    MATCH (o:Insight {tenant: $tenant}) RETURN o
    UNION
    MATCH (o:Summary {tenant: $tenant}) RETURN o
    UNION
    MATCH (o:Procedure {tenant: $tenant}) WHERE o.provenance = 'induction' RETURN o
  }
  WITH o
  WHERE NOT o:Erasing AND NOT EXISTS { (o)-[:CITES|DERIVED_FROM]->() }
  WITH o LIMIT $limit
  SET o:Erasing
  RETURN count(o) AS orphans
}
RETURN selected, orphans
