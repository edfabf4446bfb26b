// name: fact_close
// Ends the valid time of fact $id where the newer fact $by starts: $by replaced its value
// ("switched to almond milk"), a change in the world, so the old fact stays believed and
// $by SUPERSEDES it with reason 'changed'. Only an open, believed, machine-made fact that
// started before $by is closed (contract §6: automatic steps never end a person's record).
// Returns the id when it was closed.
MATCH (o:Fact {tenant: $tenant, id: $id})
MATCH (n:Fact {tenant: $tenant, id: $by})
WHERE o.invalidatedAt IS NULL AND o.validTo IS NULL AND o.provenance IN $automatic
  AND (o.validFrom IS NULL OR o.validFrom < n.validFrom)
SET o.validTo = n.validFrom, o.closedAt = $now
CREATE (n)-[:SUPERSEDES {reason: 'changed', at: $now}]->(o)
RETURN o.id AS id
