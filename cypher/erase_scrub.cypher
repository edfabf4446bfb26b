// name: erase_scrub
// Fourth step of an erase batch: no id of an erased record stays in a surviving one. Every
// memory joined by an edge to a labelled record (or a fact whose subject is a labelled
// entity) loses the properties whose value is such an id and the list items equal to one;
// an id of 16 characters or more (generated ids have 32) is also cut out of longer text
// (a status log line naming a merged procedure), replaced by '(erased)'. Shorter ids are
// only removed as whole values, so an id like 'f1' never rewrites 'f10'. The edges
// themselves go with the erased record. A record's own id, tenant and scope are never
// rewritten: a surviving id may contain an erased one ('s#1' inside 's#12'). Returns how
// many properties were rewritten.
CALL () {
  MATCH (d:Erasing {tenant: $tenant})--(n:Memory {tenant: $tenant})
  WHERE NOT n:Erasing
  RETURN n, d.id AS gone
  UNION
  MATCH (d:Entity:Erasing {tenant: $tenant})
  MATCH (n:Fact {tenant: $tenant, subject: d.id})
  WHERE NOT n:Erasing
  RETURN n, d.id AS gone
}
WITH n, collect(DISTINCT gone) AS gone
WITH n, gone, [g IN gone WHERE size(g) >= 16] AS long
UNWIND [k IN keys(n) WHERE NOT k IN ['id', 'tenant', 'scope']] AS key
WITH n, key, n[key] AS value, valueType(n[key]) AS type, gone, long
// CASE, not AND/OR: a planner may evaluate either side of an OR first (Neo4j 2026 does),
// and a string test on a list (or a list test on a string) is a type error
WHERE CASE
  WHEN type STARTS WITH 'STRING' THEN value IN gone OR any(g IN long WHERE value CONTAINS g)
  WHEN type STARTS WITH 'LIST<STRING' THEN any(v IN value WHERE v IN gone OR any(g IN long WHERE v CONTAINS g))
  ELSE false
END
SET n[key] = CASE
  WHEN type STARTS WITH 'STRING' AND value IN gone THEN null
  WHEN type STARTS WITH 'STRING' THEN reduce(s = value, g IN long | replace(s, g, '(erased)'))
  ELSE [v IN value WHERE NOT v IN gone | reduce(s = v, g IN long | replace(s, g, '(erased)'))]
END
RETURN count(*) AS scrubbed
