// name: floor_indexed_drop_created
// Removes the indexed floor's floor_created when the write benchmark ends.
DROP INDEX floor_created IF EXISTS
