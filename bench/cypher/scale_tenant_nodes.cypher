// name: scale_tenant_nodes
// What is left of a tenant after the scale benchmark erased it: nodes of any label whose
// tenant property is $tenant (memories, windows, scopes, entities; a relationship cannot
// outlive both its ends). A full scan on purpose: no index is trusted to say "nothing left".
MATCH (n)
WHERE n.tenant = $tenant
RETURN count(n) AS nodes
