// name: reembed_load_writes
// Of the texts $texts (the writer's of bench/reembed.py --under-load, each unique), how many
// memories of tenant $tenant hold one, and how many of those have a vector in the active
// slot's property $property.
MATCH (m:Memory {tenant: $tenant})
WHERE m.text IN $texts
RETURN count(m) AS found, count(m[$property]) AS embedded
