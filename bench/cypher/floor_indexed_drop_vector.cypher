// name: floor_indexed_drop_vector
// Removes the indexed floor's floor_embedding when the write benchmark ends.
DROP INDEX floor_embedding IF EXISTS
