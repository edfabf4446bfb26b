// name: fact_relates_sync
// Copies the four timestamps of the given facts onto their RELATES projections
// (reached through the fact's subject entity, so it never leaves the tenant).
UNWIND $ids AS factId
MATCH (f:Fact {tenant: $tenant, id: factId})-[:ABOUT {role: 'subject'}]->(:Entity)-[r:RELATES {factId: factId}]->()
SET r.validFrom = f.validFrom, r.validTo = f.validTo, r.invalidatedAt = f.invalidatedAt
