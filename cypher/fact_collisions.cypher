// name: fact_collisions
// Contradiction rule 2 (contract §7.2): the correction $id invalidates every believed
// extraction-provenance fact stored in its own scope whose embedding has cosine similarity
// >= $threshold with the correction's (vector.similarity.cosine is scaled to 0..1, so the
// caller passes (1 + cosine) / 2), with reason 'contradicted' and SUPERSEDES. A fact of an
// ancestor or descendant scope is never touched: a write changes nothing outside its own
// scope (docs/design-notes.md#scope-chain-facts).
MATCH (n:Fact {tenant: $tenant, id: $id})
WHERE {{vector(n)}} IS NOT NULL
MATCH (o:Memory {tenant: $tenant, scope: n.scope})
WHERE o:Fact AND o.provenance = 'extraction' AND o.invalidatedAt IS NULL
  AND o.id <> n.id AND {{vector(o)}} IS NOT NULL AND size({{vector(o)}}) = size({{vector(n)}})
WITH n, o, vector.similarity.cosine({{vector(n)}}, {{vector(o)}}) AS similarity
WHERE similarity >= $threshold
SET o.invalidatedAt = $now, o.invalidationReason = 'contradicted'
CREATE (n)-[:SUPERSEDES {reason: 'contradicted', at: $now, similarity: similarity}]->(o)
RETURN o.id AS id
