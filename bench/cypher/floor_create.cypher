// name: floor_create
// The physical floor of writing: a bare UNWIND ... CREATE of the same rows, nothing else.
UNWIND $rows AS r
CREATE (n:Floor)
SET n = r
