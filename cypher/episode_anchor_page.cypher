// name: episode_anchor_page
// One page of episodes without refersTo (written before episodes kept the moments their time
// expressions name, or naming none), in (tenant, id) order after ($afterTenant, $afterId),
// at most $limit: what the store's upgrade step "time anchors" reads (_base/layout.py).
MATCH (m:Episode)
WHERE m.refersTo IS NULL AND (m.tenant > $afterTenant OR (m.tenant = $afterTenant AND m.id > $afterId))
RETURN m.tenant AS tenant, m.id AS id, m.text AS text, m.occurredAt AS occurredAt
ORDER BY tenant, id
LIMIT $limit
