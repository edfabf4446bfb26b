// name: recall_part_expand
// recall_expand alone: the direct hits are the memories whose ids are given, in order.
CYPHER replan=force
UNWIND range(0, size($hitIds) - 1) AS i
MATCH (m:Memory {tenant: $tenant, id: $hitIds[i]})
USING INDEX m:Memory(tenant, id)
WITH m, i ORDER BY i
WITH collect({m: m, semanticRank: i + 1, rrf: 1.0 / ($rrfK + i + 1)}) AS direct
CALL (direct) {
  {{recall_expand}}
}
RETURN expanded
