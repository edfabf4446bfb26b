// name: curation_merge
// The merged record $by replaces the originals $ids: each, if still believed, is
// invalidated with reason 'merged' and gets SUPERSEDES and DERIVED_FROM edges from $by.
// Returns the ids merged.
MATCH (n:Memory {tenant: $tenant, id: $by})
UNWIND $ids AS wanted
MATCH (o:Memory {tenant: $tenant, id: wanted})
WHERE o.invalidatedAt IS NULL
SET o.invalidatedAt = $now, o.invalidationReason = 'merged'
CREATE (n)-[:SUPERSEDES {reason: 'merged', at: $now}]->(o)
CREATE (n)-[:DERIVED_FROM]->(o)
RETURN o.id AS id
