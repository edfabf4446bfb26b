// name: floor_indexed_text
// The indexed floor's full-text index, as memory_text (english analyser).
CREATE FULLTEXT INDEX floor_text IF NOT EXISTS FOR (n:FloorIndexed) ON EACH [n.text]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
