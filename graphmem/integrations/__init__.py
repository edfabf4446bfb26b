"""Adapters that put graphmem where agents run (one module per framework, each behind an
extra: ``graphmem[mcp]``, ``graphmem[langchain]``, ``graphmem[langgraph]``).

Importing this package imports none of those frameworks; import the module you need,
e.g. ``graphmem.integrations.mcp``.
"""
