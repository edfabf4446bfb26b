"""What is remembered: facts, entities, episodes, the key-value store, erase, export and import,
the graph view, and a memory object's shared state (Core). Imports graphmem._base only."""
