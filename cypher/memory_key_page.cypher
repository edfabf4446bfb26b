// name: memory_key_page
// One page of the memories of $tenant with normalised keys, in id order after $afterId, at
// most $limit (an index seek on (tenant, id) in its order): what the upgrade step "keys" (and
// tools/rekey.py) reads to recompute textKey, nameKey and aliasKeys after the key format
// changed (docs/limits.md).
MATCH (m:Memory {tenant: $tenant})
WHERE m.id > $afterId AND m.textKey IS NOT NULL
WITH m ORDER BY m.tenant, m.id LIMIT $limit
RETURN m.tenant AS tenant, m.id AS id, m.text AS text, m.name AS name, m.aliases AS aliases,
       m.textKey AS textKey, m.nameKey AS nameKey, m.aliasKeys AS aliasKeys
