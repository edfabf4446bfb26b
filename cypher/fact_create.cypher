// name: fact_create
// Writes new :Fact nodes (one per row) in their scope, with ABOUT edges to the subject and
// object entities visible in the row's scope chain, the RELATES projection when both ends
// are entities, and DERIVED_FROM edges to the episodes the fact was extracted from. An
// entity end's name is copied to subjectName / objectName, for reading.
// $rows: [{props, chain, derivedFrom}]; props holds the node's properties (no tenant).
// Returns the new ids (the caller has the properties already).
UNWIND $rows AS row
CREATE (m:Memory:Fact)
SET m = row.props, m.tenant = $tenant, m.kind = 'fact', m.createdAt = $now
{{vector_placed(m)}}
WITH m, row
MATCH (scope:Scope {tenant: $tenant, path: m.scope})
CREATE (m)-[:IN_SCOPE]->(scope)
WITH m, row
CALL (m, row) {
  OPTIONAL MATCH (subj:Entity {tenant: $tenant, id: m.subject}) WHERE subj.scope IN row.chain
  OPTIONAL MATCH (obj:Entity {tenant: $tenant, id: m.object}) WHERE obj.scope IN row.chain
  FOREACH (_ IN CASE WHEN subj IS NULL THEN [] ELSE [1] END |
    CREATE (m)-[:ABOUT {role: 'subject'}]->(subj) SET m.subjectName = subj.name)
  FOREACH (_ IN CASE WHEN obj IS NULL THEN [] ELSE [1] END |
    CREATE (m)-[:ABOUT {role: 'object'}]->(obj) SET m.objectName = obj.name)
  FOREACH (_ IN CASE WHEN subj IS NULL OR obj IS NULL THEN [] ELSE [1] END |
    CREATE (subj)-[:RELATES {predicate: m.predicate, factId: m.id, validFrom: m.validFrom,
                             validTo: m.validTo, createdAt: m.createdAt}]->(obj))
}
CALL (m, row) {
  UNWIND row.derivedFrom AS episodeId
  MATCH (e:Episode {tenant: $tenant, id: episodeId})
  CREATE (m)-[:DERIVED_FROM]->(e)
}
RETURN m.id AS id
