// name: memory_key_update
// Sets recomputed keys ($rows: tenant, id, textKey, nameKey, aliasKeys; null removes a key
// the record does not have) on the memories tools/rekey.py read; returns how many it set.
UNWIND $rows AS row
MATCH (m:Memory {tenant: row.tenant, id: row.id})
SET m.textKey = row.textKey, m.nameKey = row.nameKey, m.aliasKeys = row.aliasKeys
RETURN count(m) AS updated
