// name: context_exchange
// The exchange around each conversation turn of $ids: the turn before it, the reply after
// it, and the turn after that (a topic opened in a hit is often answered two turns on: "I
// went to a poetry reading" - "What was it about?" - "Lighthouse keepers, mostly"),
// along the conversation's NEXT edges. A turn is returned only when recall could return it
// (fragment recall_filter: tenant, visible scopes, kinds, status, sensitivity, transaction
// and valid time, user, agent, session), and the turn two on only through a returned reply.
// Each row: the hit's id, the turn's offset from it (-1, 1 or 2) and the turn's record
// (fragment record). The caller keeps what an exchange with someone else holds
// (docs/design-notes.md#context-exchange).
UNWIND $ids AS id
MATCH (hit:Episode {tenant: $tenant, id: id})
WITH hit,
     [(before:Episode)-[:NEXT]->(hit) WHERE before.scope IN $chain AND {{recall_filter(before)}} | {m: before, offset: -1}]
     + [(hit)-[:NEXT]->(reply:Episode) WHERE reply.scope IN $chain AND {{recall_filter(reply)}} | {m: reply, offset: 1}]
     + [(hit)-[:NEXT]->(reply:Episode)-[:NEXT]->(next:Episode)
        WHERE reply.scope IN $chain AND {{recall_filter(reply)}} AND next.scope IN $chain AND {{recall_filter(next)}}
        | {m: next, offset: 2}] AS near
UNWIND near AS turn
WITH hit, turn.offset AS offset, properties(turn.m) AS p
RETURN hit.id AS hit, offset, {{record(p)}} AS node
ORDER BY hit, offset
