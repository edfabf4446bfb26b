// name: name_frequency
// Which names of a question are common in the memory: held by more than $share of the
// visible memories, by at least $least and, in a big memory, by $most or more. Recall leaves
// such a name out of what a bag-of-words embedder embeds for the question (a speaker's name
// on every line they said); a rare one (a restaurant, a city) stays
// (docs/design-notes.md#recall-names). $names holds one {word, lucene} per name, the Lucene
// query narrowed to the visible scopes as recall's own full-text query is; Lucene returns at
// most `enough` hits per name, so the count costs at most $most rows.
CALL () {
  UNWIND $chain AS path
  OPTIONAL MATCH (s:Scope {tenant: $tenant, path: path})
  USING INDEX s:Scope(tenant, path)
  RETURN sum(coalesce(s.memories, 0)) AS inScope
}
WITH toInteger(floor($share * inScope)) + 1 AS byShare
WITH CASE WHEN byShare < $least THEN $least WHEN byShare > $most THEN $most ELSE byShare END AS enough
UNWIND $names AS name
CALL (name, enough) {
  CALL db.index.fulltext.queryNodes('memory_text', name.lucene, {limit: enough})
    YIELD node
  WHERE node.tenant = $tenant AND node.scope IN $chain
  RETURN count(node) AS found
}
RETURN name.word AS word, found >= enough AS common
