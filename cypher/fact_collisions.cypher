// name: fact_collisions
// Contradiction rule 2 (contract §7.2): the correction $id invalidates every believed
// extraction-provenance fact visible in its scope chain whose embedding has cosine
// similarity >= $threshold with the correction's (vector.similarity.cosine is scaled to
// 0..1, so the caller passes (1 + cosine) / 2), with reason 'contradicted' and SUPERSEDES.
MATCH (n:Fact {tenant: $tenant, id: $id})
WHERE {{vector(n)}} IS NOT NULL
MATCH (o:Memory {tenant: $tenant})
WHERE o.scope IN $chain AND o:Fact AND o.provenance = 'extraction' AND o.invalidatedAt IS NULL
  AND o.id <> n.id AND {{vector(o)}} IS NOT NULL AND size({{vector(o)}}) = size({{vector(n)}})
WITH n, o, vector.similarity.cosine({{vector(n)}}, {{vector(o)}}) AS similarity
WHERE similarity >= $threshold
SET o.invalidatedAt = $now, o.invalidationReason = 'contradicted'
CREATE (n)-[:SUPERSEDES {reason: 'contradicted', at: $now, similarity: similarity}]->(o)
RETURN o.id AS id
