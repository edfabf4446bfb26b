"""The I/O half of every concept: the store (``backend.py``), one service per concept over it
(which embed, run Cypher templates and hand back records), and ``AsyncMemory``, the front
door that builds them and hands each call to its service. Imports graphmem._base, _memory, _recall, _learning and _working.

Every module here but this one is the source of its twin in graphmem/_sync (tools/unasync.py).
"""
