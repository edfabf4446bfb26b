// name: entity_neighbourhood
// An entity's neighbourhood (given by id or name): the entities it RELATES to in either
// direction, the believed facts ABOUT it and the episodes that MENTION it, each capped at
// $limit so a busy entity still draws.
// :param tenant => 'default'
// :param entity => 'alice'
// :param limit => 50
MATCH (e:Entity {tenant: $tenant})
  WHERE e.id = $entity OR e.name = $entity
CALL (e) {
  OPTIONAL MATCH related = (e)-[r:RELATES]-(:Entity {tenant: $tenant})
    WHERE r.invalidatedAt IS NULL
  RETURN collect(related)[..$limit] AS related
}
CALL (e) {
  OPTIONAL MATCH about = (f:Fact {tenant: $tenant})-[:ABOUT]->(e)
    WHERE f.invalidatedAt IS NULL
  RETURN collect(about)[..$limit] AS facts
}
CALL (e) {
  OPTIONAL MATCH mention = (:Episode {tenant: $tenant})-[:MENTIONS]->(e)
  RETURN collect(mention)[..$limit] AS mentions
}
RETURN e, related, facts, mentions
