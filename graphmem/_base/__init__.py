"""What every concept stands on: errors, settings, connection, validation, scopes, dates, vectors,
the record models, the Cypher templates, events and embedders. Imports nothing of graphmem's."""
