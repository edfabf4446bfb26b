// name: floor_indexed_await
// Waits until the indexed floor's indexes are online.
CALL db.awaitIndexes(300)
