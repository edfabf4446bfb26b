// name: decision_quality
// Believed decisions visible in a scope chain grouped by decision type or agent ($by is
// 'decision_type' or 'agent'), with how many had each quality of outcome.
MATCH (d:Memory {tenant: $tenant})
WHERE d.scope IN $chain AND d:Decision AND d.invalidatedAt IS NULL
WITH CASE $by WHEN 'agent' THEN d.agentId ELSE d.decisionType END AS key, d
RETURN key, count(d) AS decisions,
       count(CASE WHEN d.quality = 'good' THEN 1 END) AS good,
       count(CASE WHEN d.quality = 'bad' THEN 1 END) AS bad,
       count(CASE WHEN d.quality = 'neutral' THEN 1 END) AS neutral
ORDER BY key
