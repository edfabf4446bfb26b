// name: floor_indexed_create
// The floor with the indexes a memory carries: the same bare UNWIND ... CREATE, onto
// :FloorIndexed, whose properties are indexed as :Memory's are (floor_indexed_* schema).
UNWIND $rows AS r
CREATE (n:FloorIndexed)
SET n = r
