// name: store_indexes
// The names of the database's indexes and constraints (a uniqueness constraint's own index
// shares its name), for graphmem setup --check to say which of graphmem's are missing.
SHOW INDEXES YIELD name
RETURN name
