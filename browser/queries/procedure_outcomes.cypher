// name: procedure_outcomes
// A procedure's track record (given by id or exact text): its success and failure counts
// and status, every OUTCOME edge to the episode where it was used (success, at), the
// episodes it was induced from (CITES) and the versions it SUPERSEDES.
// :param tenant => 'default'
// :param procedure => 'the-procedure-id'
MATCH (p:Procedure {tenant: $tenant})
  WHERE p.id = $procedure OR p.text = $procedure
OPTIONAL MATCH used = (p)-[:OUTCOME]->(:Episode {tenant: $tenant})
OPTIONAL MATCH induced = (p)-[:CITES]->(:Episode {tenant: $tenant})
OPTIONAL MATCH replaced = (p)-[:SUPERSEDES]->(:Procedure {tenant: $tenant})
RETURN p, collect(DISTINCT used) AS outcomes, collect(DISTINCT induced) AS inducedFrom,
       collect(DISTINCT replaced) AS replaced, p.successCount AS successes,
       p.failureCount AS failures, p.status AS status
