// name: schema_entity_keys
// creates: entity_keys
// Full-text index of every entity's lookup keys with the keyword analyzer (each key one
// whole term, matched exactly): its normalised name, its aliases' keys (a list, which a
// range index cannot look into) and lexKey, the token of its (tenant, scope). Entity
// resolution while writing (entity_match) and the entities a question names (recall) find
// names and aliases through it instead of scanning a tenant's entities.
CREATE FULLTEXT INDEX entity_keys IF NOT EXISTS FOR (n:Entity) ON EACH [n.nameKey, n.aliasKeys, n.lexKey]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'keyword'}}
