"""Memory's blocking store, services and front door, generated from graphmem/_async by tools/unasync.py (do not edit
them, edit the async source). Imports graphmem._base, _memory, _recall, _learning and _working.
"""
