// name: episode_anchor_update
// Sets the time anchors the upgrade step computed ($rows: tenant, id, refersTo, a list of
// datetimes) on episodes that still have none; returns how many it set.
UNWIND $rows AS row
MATCH (m:Episode {tenant: row.tenant, id: row.id})
WHERE m.refersTo IS NULL
SET m.refersTo = row.refersTo
RETURN count(m) AS updated
