// name: erase_mark_derived
// Second step of an erase batch: labels :Erasing every record (not an entity) derived,
// over CITES and DERIVED_FROM, from a record labelled so far, whose evidence is all being
// erased. A record stays when some chain of its evidence (up to 8 steps) reaches a record
// that is neither named by the request nor labelled, and that derives from nothing named
// or labelled: one piece of evidence that outlives the erase keeps it. Evidence named by the
// request but left for a later batch counts as erased. Returns how many were labelled.
MATCH (:Erasing {tenant: $tenant})<-[:CITES|DERIVED_FROM]-{1,8}(d:Memory {tenant: $tenant})
WHERE NOT d:Erasing AND NOT d:Entity
WITH DISTINCT d
WHERE NOT EXISTS {
  MATCH (d) (()-[:CITES|DERIVED_FROM]->(x:Memory WHERE NOT x:Erasing AND NOT {{erase_selected(x)}})){1,8} (last)
  WHERE NOT EXISTS {
    MATCH (last)-[:CITES|DERIVED_FROM]->{1,8}(gone:Memory)
    WHERE gone:Erasing OR {{erase_selected(gone)}}
  }
}
SET d:Erasing
RETURN count(d) AS derived
