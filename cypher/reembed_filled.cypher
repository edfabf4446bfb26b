// name: reembed_filled
// How many memories of the tenants $tenants (null: every tenant) already have a vector in the
// slot a re-embedding fills (`staging`): what an earlier, interrupted run did.
MATCH (m:Memory)
WHERE {{staging(m)}} IS NOT NULL AND ($tenants IS NULL OR m.tenant IN $tenants)
RETURN count(m) AS filled
