// name: reembed_write
// Stores a re-embedding's new vectors ($rows: tenant, id, vector) in the slot it fills
// (`staging`), on memories that still have their old one (a memory forgotten or erased
// meanwhile is left alone); returns how many it wrote.
UNWIND $rows AS row
MATCH (m:Memory {tenant: row.tenant, id: row.id})
WHERE {{vector(m)}} IS NOT NULL
SET {{staging(m)}} = row.vector
RETURN count(m) AS written
