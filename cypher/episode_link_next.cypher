// name: episode_link_next
// Links each new episode of a conversation to the turn before it: a NEXT edge from the
// latest episode of the same scope and session that happened earlier (a turn is usually
// the answer to the one before; recall lifts a turn whose neighbour answers). $ids: the new
// episodes, in the order they happened. Returns how many edges were written.
UNWIND $ids AS id
MATCH (m:Episode {tenant: $tenant, id: id})
WHERE m.sessionId IS NOT NULL AND NOT EXISTS { (:Episode)-[:NEXT]->(m) }
CALL (m) {
  MATCH (before:Episode {tenant: $tenant, sessionId: m.sessionId})
  WHERE before.scope = m.scope AND before.occurredAt < m.occurredAt
  RETURN before ORDER BY before.occurredAt DESC, before.id DESC LIMIT 1
}
CREATE (before)-[:NEXT]->(m)
RETURN count(*) AS linked
