"""graphmem for Google ADK: a memory service, a context tool and a session service.

``pip install graphmem[adk]``. ``GraphMemMemoryService`` is ADK's ``BaseMemoryService``
(``Runner(memory_service=...)``): sessions and events stored as episodes, searched by
``recall``, explicit memories remembered, one erased. ``GraphMemContextTool`` puts graphmem's
prompt block for the user's turn in the system instruction before each model call.
``GraphMemSessionService`` is ADK's ``BaseSessionService``: sessions, their events and
their app, user and session state kept in graphmem. Each takes a ``Memory`` or an
``AsyncMemory``; the tenant is the memory's, and ADK's ``app_name`` and ``user_id`` pick the
scope (``<scope>/<app_name>/<user_id>``), so users and apps never read each other's records.
"""

from .._base.public import publish
from ._adk_memory import GraphMemContextTool, GraphMemMemoryService, memory_entry
from ._adk_sessions import GraphMemSessionService

__all__ = ["GraphMemContextTool", "GraphMemMemoryService", "GraphMemSessionService", "memory_entry"]

publish(__name__, globals())
