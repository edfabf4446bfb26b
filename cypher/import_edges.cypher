// name: import_edges
// Recreates exported edges between memories of this tenant with their properties. The
// relationship type is row.type, chosen among the fixed types below (anything else was
// refused before the call). $rows: [{type, source, target, props}]. Returns how many edges
// were created (a row whose ends are missing creates none).
UNWIND $rows AS row
MATCH (a:Memory {tenant: $tenant, id: row.source})
MATCH (b:Memory {tenant: $tenant, id: row.target})
FOREACH (_ IN CASE WHEN row.type = 'CITES' THEN [1] ELSE [] END | CREATE (a)-[r:CITES]->(b) SET r = row.props)
FOREACH (_ IN CASE WHEN row.type = 'SUPERSEDES' THEN [1] ELSE [] END | CREATE (a)-[r:SUPERSEDES]->(b) SET r = row.props)
FOREACH (_ IN CASE WHEN row.type = 'RELATES' THEN [1] ELSE [] END | CREATE (a)-[r:RELATES]->(b) SET r = row.props)
FOREACH (_ IN CASE WHEN row.type = 'ABOUT' THEN [1] ELSE [] END | CREATE (a)-[r:ABOUT]->(b) SET r = row.props)
FOREACH (_ IN CASE WHEN row.type = 'DERIVED_FROM' THEN [1] ELSE [] END | CREATE (a)-[r:DERIVED_FROM]->(b) SET r = row.props)
FOREACH (_ IN CASE WHEN row.type = 'MENTIONS' THEN [1] ELSE [] END | CREATE (a)-[r:MENTIONS]->(b) SET r = row.props)
FOREACH (_ IN CASE WHEN row.type = 'SPOKE' THEN [1] ELSE [] END | CREATE (a)-[r:SPOKE]->(b) SET r = row.props)
FOREACH (_ IN CASE WHEN row.type = 'SAME_AS' THEN [1] ELSE [] END | CREATE (a)-[r:SAME_AS]->(b) SET r = row.props)
FOREACH (_ IN CASE WHEN row.type = 'CORROBORATES' THEN [1] ELSE [] END | CREATE (a)-[r:CORROBORATES]->(b) SET r = row.props)
FOREACH (_ IN CASE WHEN row.type = 'OUTCOME' THEN [1] ELSE [] END | CREATE (a)-[r:OUTCOME]->(b) SET r = row.props)
FOREACH (_ IN CASE WHEN row.type = 'NEXT' THEN [1] ELSE [] END | CREATE (a)-[r:NEXT]->(b) SET r = row.props)
FOREACH (_ IN CASE WHEN row.type = 'PART_OF' THEN [1] ELSE [] END | CREATE (a)-[r:PART_OF]->(b) SET r = row.props)
RETURN count(*) AS created
