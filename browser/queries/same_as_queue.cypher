// name: same_as_queue
// The SAME_AS review queue: pairs of entities that entity resolution found alike but not
// alike enough to merge (status 'candidate'), most similar first, with their names and
// aliases to compare.
// :param tenant => 'default'
// :param limit => 50
MATCH pair = (a:Entity {tenant: $tenant})-[s:SAME_AS]->(b:Entity {tenant: $tenant})
  WHERE s.status = 'candidate'
RETURN pair, a.name AS name, a.aliases AS aliases, b.name AS candidate,
       b.aliases AS candidateAliases, s.similarity AS similarity, s.at AS found
ORDER BY s.similarity DESC
LIMIT $limit
