// name: import_edges_existing
// The edges the tenant already holds where an import would add one between two of its
// memories (both ends outside the file): for each row, every edge of row.type from
// row.source to row.target, with its properties (the caller compares what tells two such
// edges apart). The type is compared as data, never formatted into the statement.
// $rows: [{i, type, source, target}]. Returns i and the existing edge's properties.
UNWIND $rows AS row
MATCH (a:Memory {tenant: $tenant, id: row.source})-[r]->(b:Memory {tenant: $tenant, id: row.target})
WHERE type(r) = row.type
RETURN row.i AS i, properties(r) AS props
