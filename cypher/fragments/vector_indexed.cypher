// fragment: vector_indexed
// What the vector index covers of a memory __node__: its embedding (Neo4j 5 has no
// additional properties).
ON {{vector(__node__)}}
