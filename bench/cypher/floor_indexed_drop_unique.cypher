// name: floor_indexed_drop_unique
// Removes the indexed floor's floor_tenant_id when the write benchmark ends.
DROP CONSTRAINT floor_tenant_id IF EXISTS
