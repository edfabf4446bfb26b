"""The I/O half of every concept: AsyncMemory's mixins, which embed, run Cypher templates and
hand back records. Imports graphmem._base, _memory, _recall, _learning and _working.

Every module here but this one is the source of its twin in graphmem/_sync (tools/unasync.py).
"""
