// name: memory_key_page
// One page of memories with normalised keys, in (tenant, id) order after ($afterTenant,
// $afterId), at most $limit: what the upgrade step "keys" (and tools/rekey.py) reads to recompute textKey, nameKey and
// aliasKeys after the key format changed (docs/limits.md). $tenant null: every tenant.
MATCH (m:Memory)
WHERE m.textKey IS NOT NULL AND ($tenant IS NULL OR m.tenant = $tenant)
  AND (m.tenant > $afterTenant OR (m.tenant = $afterTenant AND m.id > $afterId))
RETURN m.tenant AS tenant, m.id AS id, m.text AS text, m.name AS name, m.aliases AS aliases,
       m.textKey AS textKey, m.nameKey AS nameKey, m.aliasKeys AS aliasKeys
ORDER BY tenant, id
LIMIT $limit
