// name: floor_indexed_drop_scope
// Removes the indexed floor's floor_tenant_scope when the write benchmark ends.
DROP INDEX floor_tenant_scope IF EXISTS
