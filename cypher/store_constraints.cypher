// name: store_constraints
// The names of the database's constraints, for graphmem setup --check.
SHOW CONSTRAINTS YIELD name
RETURN name
