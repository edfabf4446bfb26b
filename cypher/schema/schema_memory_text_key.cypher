// name: schema_memory_text_key
// creates: memory_tenant_text_key
// Range index: normalised statement text (tombstone checks on write).
CREATE INDEX memory_tenant_text_key IF NOT EXISTS FOR (n:Memory) ON (n.tenant, n.textKey)
