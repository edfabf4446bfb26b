// name: schema_store_id
// creates: graphmem_store_id
// One store node per database: (:GraphMemStore {id: 'store'}) holds the schema version and
// where the vectors live (store_layout); concurrent setup() calls merge into the same node.
CREATE CONSTRAINT graphmem_store_id IF NOT EXISTS FOR (s:GraphMemStore) REQUIRE s.id IS UNIQUE
