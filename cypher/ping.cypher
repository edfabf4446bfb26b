// name: ping
// Readiness probe: succeeds once the database answers queries.
RETURN 1 AS ok
