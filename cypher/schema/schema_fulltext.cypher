// name: schema_fulltext
// creates: memory_text
// Full-text index over every memory's text (lexical recall) with the English analyzer
// (stop words dropped, words stemmed), and lexKey, a single token naming the memory's
// (tenant, scope), so a recall query is narrowed to the visible scopes of its tenant
// inside Lucene (the exact filter is still applied in Cypher).
CREATE FULLTEXT INDEX memory_text IF NOT EXISTS FOR (n:Memory) ON EACH [n.text, n.lexKey]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
