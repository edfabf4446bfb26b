// name: changes_since
// What changed in a scope and the scopes below it since a time: every memory written or
// invalidated (corrected, forgotten, contradicted...) at or after $since, newest change
// first, with the SUPERSEDES edges from each to the record it replaced.
// :param tenant => 'default'
// :param scope => 'acme/support'
// :param since => datetime('2026-01-01T00:00:00Z')
MATCH (m:Memory {tenant: $tenant})
  WHERE (m.scope = $scope OR m.scope STARTS WITH $scope + '/')
    AND (m.createdAt >= $since OR m.invalidatedAt >= $since)
OPTIONAL MATCH replaced = (m)-[:SUPERSEDES]->(:Memory {tenant: $tenant})
RETURN m, replaced
ORDER BY coalesce(m.invalidatedAt, m.createdAt) DESC
