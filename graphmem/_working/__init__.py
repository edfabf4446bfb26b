"""Working memory around a turn: the turn's context, background work, notes and summaries.
Imports graphmem._base, _memory, _recall, _learning."""
