// fragment: recall_expand
// Recall's expansion (the body of `CALL (direct) { ... }`): from the best $expandFrom
// direct hits of the two index sides (by reciprocal rank fusion), one hop through ABOUT,
// RELATES, CITES and DERIVED_FROM (a RELATES edge must itself be believed at $asOf and valid
// at $validAt), and two through an entity a hit names that does not speak, to the other turns
// naming it when at most $mentionLimit do. Neighbours pass the same filters as hits.
// Expanded from the hit node itself, not from a labelled neighbour
// (docs/design-notes.md#recall-plan-kept). Returns expanded: the best $expandLimit as
// {m, via}, via being the best fusion score of a hit that reached it.
  UNWIND [x IN direct WHERE x.semanticRank IS NOT NULL OR x.lexicalRank IS NOT NULL][0..$expandFrom] AS hit
  WITH hit, hit.m AS source
  WHERE source IS NOT NULL
  // expand from the hit itself, not from a labelled neighbour (docs/design-notes.md#recall-plan-kept)
  UNWIND [(source)-[link:ABOUT|RELATES|CITES|DERIVED_FROM]-(n)
          WHERE 'Memory' IN labels(n) AND n.tenant = $tenant AND n.scope IN $chain
            AND (NOT link:RELATES OR (link.createdAt <= $asOf
                 AND ($includeInvalidated OR link.invalidatedAt IS NULL OR link.invalidatedAt > $asOf)
                 AND (link.validFrom IS NULL OR link.validFrom <= $validAt)
                 AND (link.validTo IS NULL OR link.validTo > $validAt)))
            AND {{recall_filter(n)}}
          | n]
         + [(source)-[:MENTIONS]->(named:Entity)<-[:MENTIONS]-(n:Episode)
            WHERE n <> source AND n.tenant = $tenant AND n.scope IN $chain
              AND COUNT { (named)<-[:MENTIONS]-() } <= $mentionLimit AND NOT EXISTS { (named)-[:SPOKE]->() }
              AND {{recall_filter(n)}}
            | n] AS n
  WITH n, max(hit.rrf) AS via
  ORDER BY via DESC, n.id LIMIT $expandLimit
  RETURN collect({m: n, via: via}) AS expanded
