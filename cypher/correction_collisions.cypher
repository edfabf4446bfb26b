// name: correction_collisions
// The correction $id invalidates every believed machine-made claim ($kinds, provenance in
// $automatic) stored in its own scope whose embedding has cosine similarity >= $threshold
// with the correction's (scaled to 0..1 like vector.similarity.cosine: the caller passes
// (1 + cosine) / 2), reason 'contradicted', with SUPERSEDES from the correction. A person's
// records (user, manual, human-correction) are never touched, nor a record of an ancestor or
// descendant scope: a write changes nothing outside its own scope
// (docs/design-notes.md#scope-chain-facts).
MATCH (c:Correction {tenant: $tenant, id: $id})
WHERE {{vector(c)}} IS NOT NULL
MATCH (o:Memory {tenant: $tenant, scope: c.scope})
WHERE o.kind IN $kinds AND o.provenance IN $automatic AND o.invalidatedAt IS NULL
  AND {{vector(o)}} IS NOT NULL AND size({{vector(o)}}) = size({{vector(c)}})
WITH c, o, vector.similarity.cosine({{vector(c)}}, {{vector(o)}}) AS similarity
WHERE similarity >= $threshold
SET o.invalidatedAt = $now, o.invalidationReason = 'contradicted'
CREATE (c)-[:SUPERSEDES {reason: 'contradicted', at: $now, similarity: similarity}]->(o)
RETURN o.id AS id
