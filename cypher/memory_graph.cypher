// name: memory_graph
// The memory graph of one tenant as seen from a scope, in one round trip: the memories
// that pass graph_visible (scope chain, kinds, both time axes) and the edges between two
// of them that existed at $asOf -- CITES, SUPERSEDES, RELATES, ABOUT, DERIVED_FROM,
// MENTIONS, SPOKE (a speaker to what they said), SAME_AS, CORROBORATES, OUTCOME and NEXT (a conversation's turn to the turn
// after it). A RELATES projection also follows its fact's times. Each node is returned as
// it was believed at $asOf (a validTo or an invalidation recorded later is hidden), without
// its embedding; each edge as its properties plus type, source and target ids.
MATCH (m:Memory {tenant: $tenant})
WHERE {{graph_visible(m)}}
WITH collect(m) AS nodes
CALL (nodes) {
  UNWIND nodes AS a
  MATCH (a)-[r:CITES|SUPERSEDES|RELATES|ABOUT|DERIVED_FROM|MENTIONS|SPOKE|SAME_AS|CORROBORATES|OUTCOME|NEXT]->(b:Memory {tenant: $tenant})
  WHERE {{graph_visible(b)}}
    AND coalesce(r.at, r.createdAt, $asOf) <= $asOf
    AND (type(r) <> 'RELATES' OR $anyTime
         OR (($includeInvalidated OR r.invalidatedAt IS NULL OR r.invalidatedAt > $asOf)
             AND (r.validFrom IS NULL OR r.validFrom <= $validAt)
             AND (r.validTo IS NULL OR r.validTo > $validAt)))
  RETURN collect(r {.*, type: type(r), source: a.id, target: b.id}) AS edges
}
RETURN [m IN nodes | m {.*, embedding: null, embeddingB: null,
          validTo: CASE WHEN m.closedAt > $asOf THEN null ELSE m.validTo END,
          closedAt: CASE WHEN m.closedAt > $asOf THEN null ELSE m.closedAt END,
          invalidatedAt: CASE WHEN m.invalidatedAt > $asOf THEN null ELSE m.invalidatedAt END,
          invalidationReason: CASE WHEN m.invalidatedAt > $asOf THEN null ELSE m.invalidationReason END}] AS nodes,
       edges
