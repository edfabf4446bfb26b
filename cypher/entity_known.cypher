// name: entity_known
// The entities visible in $chain that extraction shows the model, so it reuses their
// names: believed ones, most recently written first, at most $limit.
UNWIND $chain AS path
MATCH (e:Memory {tenant: $tenant, scope: path})
WHERE e:Entity AND e.invalidatedAt IS NULL
RETURN e.name AS name, e.type AS type, coalesce(e.aliases, []) AS aliases
ORDER BY e.createdAt DESC, e.id
LIMIT $limit
