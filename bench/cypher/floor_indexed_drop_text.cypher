// name: floor_indexed_drop_text
// Removes the indexed floor's floor_text when the write benchmark ends.
DROP INDEX floor_text IF EXISTS
