// name: entity_update
// Records new aliases and properties on an existing entity (resolution merged a name).
MATCH (e:Entity {tenant: $tenant, id: $id})
SET e.aliases = $aliases, e.aliasKeys = $aliasKeys, e.foldKeys = $foldKeys, e.propertiesJson = $propertiesJson
RETURN e {.*, embedding: null, embeddingB: null} AS node
