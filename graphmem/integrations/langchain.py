"""graphmem for LangChain: a retriever, tools for a tool-calling model, and a chat history.

``pip install graphmem[langchain]``. Every class takes a ``Memory`` (sync and async calls;
async ones run it in a worker thread) or an ``AsyncMemory`` (async calls only). The tenant
is the memory's, the scope is the application's: a model never chooses either.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, field_validator

from .._base import scopes
from .._base.errors import InvalidInputError
from .._base.kinds import KINDS
from .._base.public import publish
from .._base.traced import instrument
from .._recall.fusion import ScoredMemory
from ._bridge import acall, call, check_memory
from ._lc_history import GraphMemChatMessageHistory, episode_message
from ._lc_tools import memory_tools

__all__ = ["GraphMemChatMessageHistory", "GraphMemRetriever", "episode_message", "memory_document", "memory_tools"]


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


@instrument("graphmem.langchain", names={"_get_relevant_documents": "graphmem.langchain.retriever",
                                        "_aget_relevant_documents": "graphmem.langchain.retriever"})
class GraphMemRetriever(BaseRetriever):
    """Documents from ``recall``: ``page_content`` is the memory's text, ``metadata`` its
    id, kind, scope, score and score parts, provenance, status, valid time, session id and
    the ids it cites. ``k`` can also be given per call (``invoke(query, k=3)``).

    ``min_relevance`` is recall's relevance floor (``recall(min_relevance=...)``: a plain
    cosine similarity, or a full-text word match); None keeps the memory's default."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory: Any
    scope: str
    k: int = 4
    kinds: list[str] | None = None
    purpose: Literal["inform", "act"] = "inform"
    as_of: datetime | None = None
    valid_at: datetime | None = None
    min_relevance: float | None = None

    @field_validator("memory")
    @classmethod
    def _memory(cls, value: Any) -> Any:
        return check_memory(value)

    @field_validator("scope")
    @classmethod
    def _scope(cls, value: str) -> str:
        return scopes.check_path(value)

    @field_validator("kinds")
    @classmethod
    def _kinds(cls, value: list[str] | None) -> list[str] | None:
        for kind in value or ():
            if kind not in KINDS:
                raise ValueError(f"{kind!r} is not one of {', '.join(KINDS)}")
        return value

    def _arguments(self, query: str, kwargs: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(kwargs) - {"k"})
        if unknown:
            raise InvalidInputError(unknown[0], "is not a per-call option of GraphMemRetriever (only k is)")
        return dict(query=query, scope=self.scope, k=kwargs.get("k", self.k), kinds=self.kinds, purpose=self.purpose,
                    as_of=self.as_of, valid_at=self.valid_at, min_relevance=self.min_relevance)

    def _documents(self, results: list[ScoredMemory]) -> list[Document]:
        return [memory_document(r) for r in results]

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun,
                                **kwargs: Any) -> list[Document]:
        args = self._arguments(query, kwargs)
        return self._documents(call(self.memory, "recall", args.pop("query"), **args))

    async def _aget_relevant_documents(self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun,
                                       **kwargs: Any) -> list[Document]:
        args = self._arguments(query, kwargs)
        return self._documents(await acall(self.memory, "recall", args.pop("query"), **args))


def memory_document(result: ScoredMemory) -> Document:
    """A recall result as a LangChain ``Document`` (times as ISO 8601 strings)."""
    record = result.record
    return Document(
        page_content=record.text,
        id=record.id,
        metadata={
            "id": record.id,
            "kind": record.kind,
            "scope": record.scope,
            "score": result.score,
            "score_parts": result.parts.model_dump(),
            "provenance": record.provenance.value,
            "status": record.status.value,
            "valid_from": _iso(getattr(record, "valid_from", None)),
            "valid_to": _iso(getattr(record, "valid_to", None)),
            "session_id": record.session_id,
            "citations": [c.id for c in result.citations],
        },
    )


publish(__name__, globals())
