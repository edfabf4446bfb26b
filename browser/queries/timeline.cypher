// name: timeline
// A subject's timeline: every fact about it (believed or not; the subject given as an
// entity id, an entity name or the subject text a fact was stored with), the SUPERSEDES
// chain from each newer fact to the one it replaced, and the entities the facts are about.
// Oldest valid time first; in the graph view, follow SUPERSEDES from the current value.
// :param tenant => 'default'
// :param subject => 'alice'
OPTIONAL MATCH (named:Entity {tenant: $tenant})
  WHERE named.id = $subject OR named.name = $subject
WITH collect(named.id) + [$subject] AS subjects
MATCH (f:Fact {tenant: $tenant})
  WHERE f.subject IN subjects
OPTIONAL MATCH link = (f)-[:SUPERSEDES|ABOUT]->(other:Memory {tenant: $tenant})
RETURN f, link
ORDER BY f.validFrom, f.createdAt
