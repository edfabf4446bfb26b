// name: scope_prune
// After an erase: the tenant's :Scope nodes left empty (no memories in them or in any scope
// below them) are deleted, so no path (a user's name in it, say) outlives what was erased.
// A later write recreates what it needs. Returns how many were deleted.
MATCH (s:Scope {tenant: $tenant})
WHERE coalesce(s.memories, 0) <= 0
  AND NOT EXISTS {
    MATCH (below:Scope {tenant: $tenant})
    WHERE below.path STARTS WITH s.path + '/' AND coalesce(below.memories, 0) > 0
  }
DETACH DELETE s
RETURN count(*) AS pruned
