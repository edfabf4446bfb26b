// name: erase_mark_entities
// Third step of an erase batch: labels :Erasing the entities that only labelled records
// created or mentioned: an entity joined to a labelled memory (ABOUT, MENTIONS,
// DERIVED_FROM) that no other memory refers to (no edge but IN_SCOPE, SAME_AS and RELATES,
// which are not references, and no surviving fact naming it as its subject), unless its
// provenance is a person's ($personal): an entity someone entered stays. A later batch
// looks again at the entities still referred to by records it erases. Returns how many.
MATCH (d:Erasing {tenant: $tenant})-[link]-(e:Entity {tenant: $tenant})
WHERE NOT e:Erasing AND NOT link:SAME_AS AND NOT link:RELATES
  AND NOT coalesce(e.provenance, '') IN $personal
WITH DISTINCT e
WHERE NOT EXISTS {
    MATCH (e)-[r]-(other:Memory)
    WHERE NOT other:Erasing AND NOT r:SAME_AS AND NOT r:RELATES
  }
  AND NOT EXISTS {
    MATCH (f:Fact {tenant: $tenant, subject: e.id})
    WHERE NOT f:Erasing
  }
SET e:Erasing
RETURN count(e) AS entities
