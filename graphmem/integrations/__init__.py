"""Where agents live: graphmem inside agent frameworks, one module per framework, each behind
an extra. Imports graphmem._base, _memory, _recall, _server, _async and _sync (never _cli).

- ``graphmem.integrations.langchain`` (``pip install graphmem[langchain]``):
  ``GraphMemRetriever``, ``memory_tools``, ``GraphMemChatMessageHistory``.
- ``graphmem.integrations.langgraph`` (``pip install graphmem[langgraph]``):
  ``GraphMemStore``, a LangGraph ``BaseStore`` on the bitemporal graph.
- ``graphmem.integrations.mcp`` (``pip install graphmem[mcp]``): the ``graphmem mcp`` server.

Nothing is imported here: ``import graphmem`` never loads a framework.
"""
