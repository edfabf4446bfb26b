// name: schema_fulltext
// Full-text index over every memory's text (lexical recall). The tenant and scope are
// indexed too, so a recall query narrows to its tenant inside Lucene (the exact tenant
// and scope filter is still applied in Cypher).
CREATE FULLTEXT INDEX memory_text IF NOT EXISTS FOR (n:Memory) ON EACH [n.text, n.tenant, n.scope]
