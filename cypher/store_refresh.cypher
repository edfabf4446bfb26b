// name: store_refresh
// Extends the time-to-live of LangGraph store items that were just read: each believed,
// unexpired item among $ids that has a TTL (storeTtl, in minutes) is valid until $now plus
// its TTL again.
UNWIND $ids AS wanted
MATCH (m:Fact {tenant: $tenant, id: wanted})
WHERE m.storeTtl IS NOT NULL AND m.invalidatedAt IS NULL AND m.validTo > $now
SET m.validTo = $now + duration({seconds: m.storeTtl * 60.0}), m.closedAt = $now
