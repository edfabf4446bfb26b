"""What is remembered: facts, entities, episodes, the key-value store, erase, export and import,
the graph view, a memory object's configuration (Core) and what it knows of the server
(known.py). Imports graphmem._base only."""
