// fragment: recall_seeds
// The first half of recall's graph side (the body of `CALL () { ... }`): the entities
// the question names, found by $entityQuery on the entity_keys full-text index (a name or
// an alias equal to a run of its words; "I" and "you" seed nothing), visible in $chain and
// believed. Returns seeds, a list of {e, speaks, degree}: whether the entity ever spoke,
// and how many records it is tied to (a speaker's ties are what they said and what is about
// them; a turn naming a speaker mostly addresses them, so it is no tie;
// docs/design-notes.md#recall-entity-side).
  WITH $entityQuery AS wanted
  WHERE trim(wanted) <> ''
  CALL db.index.fulltext.queryNodes('entity_keys', wanted, {limit: $seedLimit}) YIELD node AS e
  WITH DISTINCT e
  WHERE e.tenant = $tenant AND e.scope IN $chain AND e.invalidatedAt IS NULL
  WITH e, EXISTS { (e)-[:SPOKE]->(:Episode) } AS speaks
  // a speaker's ties are what they said and what is about them: a turn naming them mostly
  // addresses them ("Hey Mel"), so it is no tie (docs/design-notes.md#recall-entity-side)
  RETURN collect({e: e, speaks: speaks,
                  degree: CASE WHEN speaks THEN COUNT { (e)-[:SPOKE|ABOUT]-() }
                               ELSE COUNT { (e)-[:SPOKE|MENTIONS|ABOUT]-() } END}) AS seeds
