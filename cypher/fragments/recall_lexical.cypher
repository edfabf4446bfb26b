// fragment: recall_lexical
// The lexical side of recall (the body of `CALL (inScope, total, spoken) { ... }`): the
// memory_text full-text index asked for $lexicalWords, less the words of the names of the
// speakers the question names (`spoken`: in the text such a name is mostly an address).
// Narrowed to the visible scopes by lexKey ($lexKeys, a clause of weight zero, so the score
// is the text's alone), or, when those scopes hold $openShare of all memories (`inScope`
// of `total`), sent open and over-fetched by total / inScope. Keeps the best $fetch that
// pass recall_filter. Returns lexicalHits ({m, score}), lexicalOpen, lexicalForeign (others'
// documents the open query dropped) and lexicalSaturated (Lucene returned all it was asked
// for: the caller may retry narrowed).
  CALL (inScope, total, spoken) {
    WITH inScope, total, spoken, [w IN $lexicalWords WHERE w <> ''] AS words
    WITH inScope, total, CASE WHEN any(w IN words WHERE NOT w IN spoken) THEN [w IN words WHERE NOT w IN spoken]
                              ELSE words END AS words
    WHERE size(words) > 0
    WITH NOT $scopedLexical AND inScope > 0 AND inScope >= $openShare * total AS open,
         CASE WHEN inScope > 0 AND total > inScope THEN 1.0 * total / inScope ELSE 1.0 END AS spread,
         'text:(' + reduce(text = '', w IN words | text + ' ' + w) + ')' AS lucene
    WITH open, CASE WHEN open THEN toInteger(ceil($textFetch * spread)) ELSE $textFetch END AS textLimit,
         CASE WHEN open THEN lucene ELSE lucene + ' AND (lexKey:(' + $lexKeys + '))^0' END AS lucene
    CALL db.index.fulltext.queryNodes('memory_text', lucene, {limit: textLimit})
      YIELD node AS m, score AS lexical
    RETURN m, lexical, open, textLimit, m.tenant = $tenant AND m.scope IN $chain AS visible
  }
  WITH m, lexical, open, textLimit, visible,
       visible AND {{recall_filter(m)}} AS wanted
  ORDER BY lexical DESC, m.id
  WITH collect(CASE WHEN wanted THEN {m: m, score: lexical} END) AS hits, coalesce(max(open), false) AS open,
       count(CASE WHEN NOT visible THEN 1 END) AS foreign, count(m) AS returned, max(textLimit) AS textLimit
  // saturated: Lucene returned as many hits as asked for, so a narrowed query could find more
  RETURN hits[0..$fetch] AS lexicalHits, open AS lexicalOpen, foreign AS lexicalForeign,
         returned > 0 AND returned >= textLimit AS lexicalSaturated
