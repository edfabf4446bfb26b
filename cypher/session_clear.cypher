// name: session_clear
// Forgets one conversation: its believed episodes visible in a scope chain are invalidated
// with reason 'forgotten' and kept as tombstones, exactly as forget() does. Returns the ids
// forgotten.
MATCH (m:Episode {tenant: $tenant, sessionId: $sessionId})
WHERE m.scope IN $chain AND m.invalidatedAt IS NULL
SET m.invalidatedAt = $now, m.invalidationReason = 'forgotten'
RETURN m.id AS id
