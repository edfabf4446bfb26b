"""Where agents live: graphmem inside agent frameworks, one module per framework, each behind
an extra. Imports graphmem._base, _memory, _recall, _server, _async and _sync (never _cli).

- ``graphmem.integrations.langchain`` (``pip install graphmem[langchain]``):
  ``GraphMemRetriever``, ``memory_tools``, ``GraphMemChatMessageHistory``.
- ``graphmem.integrations.langgraph`` (``pip install graphmem[langgraph]``):
  ``GraphMemStore``, a LangGraph ``BaseStore`` on the bitemporal graph.
- ``graphmem.integrations.mcp`` (``pip install graphmem[mcp]``): the ``graphmem mcp`` server.
- ``graphmem.integrations.adk`` (``graphmem[adk]``): Google ADK's memory service, a context
  tool and a session service.
- ``graphmem.integrations.agent_framework`` (``graphmem[agent-framework]``): Microsoft Agent
  Framework's context and history providers.
- ``graphmem.integrations.openai_agents`` (``graphmem[openai-agents]``): an OpenAI Agents SDK
  ``Session`` with a model-input filter that adds the turn's memory.
- ``graphmem.integrations.pydantic_ai`` (``graphmem[pydantic-ai]``): a PydanticAI capability
  and a history processor.
- ``graphmem.integrations.llamaindex`` (``graphmem[llamaindex]``): a LlamaIndex memory block
  and a ``Memory`` that stores each turn.

Nothing is imported here: ``import graphmem`` never loads a framework.
"""
