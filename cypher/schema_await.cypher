// name: schema_await
// Waits until every index is ONLINE (seconds).
CALL db.awaitIndexes($timeout)
