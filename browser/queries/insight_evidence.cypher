// name: insight_evidence
// An insight's evidence tree: what it CITES (down to three levels, for insights citing
// insights), where each cited fact came from (DERIVED_FROM episodes) and what it is ABOUT,
// and the facts that CORROBORATE it. The insight is given by id or by its exact text.
// :param tenant => 'default'
// :param insight => 'the-insight-id'
MATCH (i:Insight {tenant: $tenant})
  WHERE i.id = $insight OR i.text = $insight
OPTIONAL MATCH cited = (i)-[:CITES*1..3]->(:Memory)
  WHERE all(n IN nodes(cited) WHERE n.tenant = $tenant)
OPTIONAL MATCH source = (i)-[:CITES]->(:Fact {tenant: $tenant})-[:DERIVED_FROM|ABOUT]->(:Memory {tenant: $tenant})
OPTIONAL MATCH support = (:Fact {tenant: $tenant})-[:CORROBORATES]->(i)
RETURN i, collect(DISTINCT cited) AS cited, collect(DISTINCT source) AS sources,
       collect(DISTINCT support) AS corroboration
