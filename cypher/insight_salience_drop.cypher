// name: insight_salience_drop
// Contradiction rule 3 (contract §7.3): each believed Insight citing one of the just
// invalidated records loses one salience point per such citation; at <= 0 it is
// invalidated with reason 'pruned' (the write lock is taken before the read, so concurrent
// invalidations do not lose a decrement). Returns the ids of the pruned insights.
UNWIND $ids AS invalidatedId
MATCH (i:Insight {tenant: $tenant})-[:CITES]->(:Memory {tenant: $tenant, id: invalidatedId})
WHERE i.invalidatedAt IS NULL
SET i._lock = true
SET i.salience = coalesce(i.salience, 2) - 1
REMOVE i._lock
WITH DISTINCT i
WHERE i.salience <= 0
SET i.invalidatedAt = $now, i.invalidationReason = 'pruned'
RETURN i.id AS id
