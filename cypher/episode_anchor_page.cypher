// name: episode_anchor_page
// One page of the episodes of $tenant without refersTo (written before episodes kept the
// moments their time expressions name, or naming none), in id order after $afterId, at most
// $limit: what the store's upgrade step "time anchors" reads (_base/layout.py).
MATCH (m:Episode {tenant: $tenant})
WHERE m.id > $afterId AND m.refersTo IS NULL
WITH m ORDER BY m.tenant, m.id LIMIT $limit
RETURN m.tenant AS tenant, m.id AS id, m.text AS text, m.occurredAt AS occurredAt
