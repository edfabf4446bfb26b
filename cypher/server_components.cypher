// name: server_components
// Name, version and edition of the Neo4j server.
CALL dbms.components() YIELD name, versions, edition
RETURN name, versions[0] AS version, edition
