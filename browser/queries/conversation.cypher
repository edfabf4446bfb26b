// name: conversation
// A conversation's graph as graphmem builds it without a model: the newest $limit turns of
// a scope, who said each (SPOKE from the speaker's entity) and the people, places and
// things each names (MENTIONS, with the character spans of the names).
// :param tenant => 'demo'
// :param scope => 'friends'
// :param limit => 30
MATCH (ep:Episode {tenant: $tenant, scope: $scope})
WITH ep ORDER BY ep.occurredAt DESC LIMIT $limit
CALL (ep) {
  OPTIONAL MATCH said = (:Entity {tenant: $tenant})-[:SPOKE]->(ep)
  RETURN collect(said) AS said
}
CALL (ep) {
  OPTIONAL MATCH named = (ep)-[:MENTIONS]->(:Entity {tenant: $tenant})
  RETURN collect(named) AS named
}
RETURN ep, said, named
