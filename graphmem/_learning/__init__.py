"""What an agent learns with a chat model or from outcomes: extraction, insights, procedures,
corrections, decisions, curation, the profile. Imports graphmem._base, _memory, _recall."""
