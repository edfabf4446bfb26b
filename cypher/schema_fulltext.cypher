// name: schema_fulltext
// Full-text index over every memory's text (lexical recall).
CREATE FULLTEXT INDEX memory_text IF NOT EXISTS FOR (n:Memory) ON EACH [n.text]
