// name: floor_indexed_created
// The indexed floor's createdAt range index, as memory_created.
CREATE INDEX floor_created IF NOT EXISTS FOR (n:FloorIndexed) ON (n.createdAt)
