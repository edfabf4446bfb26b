"""graphmem for Microsoft Agent Framework: a context provider (memory across sessions) and a
history provider (the conversation kept as graphmem episodes).

``pip install 'graphmem[agent-framework]'``. Both take a ``Memory`` (called in a worker
thread, so the event loop never blocks) or an ``AsyncMemory``. The tenant is the memory's,
``scope`` is the application's and every user gets ``<scope>/<user_id>`` below it
(``TurnMemory.place``): the user id is the application's, never a model's or a prompt's,
and two users of one application never read each other's memories.

Recommended combinations (each message is stored once in every one of them):

* ``GraphMemContextProvider`` alone: before a run it adds what graphmem remembers of the
  user to the agent's instructions; after it, it stores the turn. An agent given a session
  and no history provider inserts Agent Framework's ``InMemoryHistoryProvider`` for the
  conversation itself, so the session's transcript lives in the session object and the
  memory in graphmem.
* ``GraphMemHistoryProvider`` with ``GraphMemContextProvider`` (same memory, scope and user):
  the history provider loads and stores the conversation in graphmem, and the context
  provider only reads; it sees the history provider among the agent's providers and leaves
  the storing to it (give the extraction model, ``llm``, to the history provider).
* ``GraphMemHistoryProvider`` alone: a durable transcript, no recall across sessions."""

from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

from agent_framework import ContextProvider, HistoryProvider, Message

from .._base import validate as check
from .._base.errors import InvalidInputError
from .._base.public import publish
from .._base.traced import instrument
from ._agent_turns import ALL_SENT, DEFAULT_MAX_TOKENS, Placement, TurnMemory

__all__ = ["GraphMemContextProvider", "GraphMemHistoryProvider", "episode_message", "turn_messages"]

STORED_ROLES = ("user", "assistant", "system")
"""The roles stored: a tool message's results and an assistant message that only calls tools
have no text of their own (Agent Framework keeps them as structured contents)."""

_READ_BACK = {"user": "user", "assistant": "assistant", "system": "system", "event": "system"}


def turn_messages(messages: Iterable[Message]) -> list[dict[str, Any]]:
    """Agent Framework messages as graphmem's ``{"role", "content"[, "id", "name"]}``: the
    user, assistant and system messages that have text. A message's ``message_id`` is the
    episode's id, so a message stored again (a re-run, a replayed transcript) is kept once;
    an id repeated inside one batch (streamed parts of one response) gets ``#2``, ``#3``...
    A user message's ``author_name`` is its speaker; an assistant's (the agent's name,
    ``UnnamedAgent`` by default) is not made a person in the graph."""
    out: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for message in messages:
        role, text = str(message.role), message.text
        if role not in STORED_ROLES or not text or check.blank(text):
            continue
        item: dict[str, Any] = {"role": role, "content": text}
        if isinstance(message.message_id, str) and message.message_id:
            n = seen[message.message_id] = seen.get(message.message_id, 0) + 1
            item["id"] = message.message_id if n == 1 else f"{message.message_id}#{n}"
        if role == "user" and message.author_name:
            item["name"] = message.author_name
        out.append(item)
    return out


def episode_message(episode: Any) -> Message | None:
    """An episode as an Agent Framework message (``message_id`` is the episode's id, so a
    transcript saved again is not stored twice); None for a tool result, which without its
    call's structure is no valid tool message."""
    role = _READ_BACK.get(episode.role)
    if role is None:
        return None
    return Message(role=role, contents=[episode.text], message_id=episode.id,
                   author_name=episode.speaker if role == "user" else None)


def _input_text(messages: Sequence[Message]) -> str:
    return "\n".join(m.text for m in messages if str(m.role) == "user" and m.text and not check.blank(m.text))


def _session_id(session: Any, context: Any) -> Any:
    """The conversation's id: the ``SessionContext``'s (the one history providers are given),
    else the session's."""
    found = getattr(context, "session_id", None)
    return found if found is not None else getattr(session, "session_id", None)


def _providers(agent: Any) -> list[Any]:
    return list(getattr(agent, "context_providers", None) or ())


class _Provider:
    """What both providers hold: the application's ``TurnMemory`` and the user's id."""

    def _setup(self, memory: Any, scope: Any, user_id: Any, agent_id: Any, llm: Any, max_tokens: Any,
               source_id: Any) -> str:
        if scope is None:
            raise InvalidInputError("scope", "is needed: the application's scope (each user gets <scope>/<user_id>)")
        self.turns = TurnMemory(memory, scope=scope, agent_id=agent_id, llm=llm, max_tokens=max_tokens)
        self.memory = self.turns.memory
        self.scope: str = str(self.turns.scope)
        self.user_id: str = self.turns.place(user_id).user_id
        self.agent_id: str | None = self.turns.agent_id
        self.llm = llm
        return check.identifier(source_id, "source_id")

    def _place(self, session_id: Any) -> Placement:
        """Where this user's conversation ``session_id`` lives (scope ``<scope>/<user_id>``)."""
        return self.turns.place(self.user_id, session_id)

    def _same_user(self, other: Any) -> bool:
        """True when ``other`` writes to the same memory, scope and user as this provider."""
        return (isinstance(other, _Provider) and other.memory is self.memory and other.scope == self.scope
                and other.user_id == self.user_id)


@instrument("graphmem.agent_framework")
class GraphMemContextProvider(_Provider, ContextProvider):
    """graphmem as an Agent Framework ``ContextProvider`` for one user of one application.

    ``before_run``: the text of the run's user messages is the question for
    ``context_for_turn`` (notes, profile, the memories recalled for it, summaries of this
    session); the block, under ``context_prompt``, is added to the run's instructions
    (``extend_instructions``), so the model reads it as system text and no history provider
    ever stores it. The block
    leaves out the session's recent messages: a history provider (the agent's own
    ``InMemoryHistoryProvider`` when it has none) or the service gives the model those. A
    run without user text adds nothing.

    ``after_run``: the run's input and response messages with text (user, assistant, system)
    are stored as episodes of the session (``after_turn``), learned from in the background
    with ``llm`` (a langchain-core chat model). Inputs or outputs that a
    ``GraphMemHistoryProvider`` of the same memory, scope and user on the agent stores are
    not stored again. ``InvalidInputError`` (a blank user or session id, a bad message id)
    is raised before anything is written."""

    DEFAULT_CONTEXT_PROMPT: ClassVar[str] = "## Memories\nWhat graphmem remembers of this user; use it when it helps:"

    def __init__(self, memory: Any, *, scope: str, user_id: str, agent_id: str | None = None, llm: Any = None,
                 max_tokens: int = DEFAULT_MAX_TOKENS, source_id: str = "graphmem",
                 context_prompt: str | None = None) -> None:
        source = self._setup(memory, scope, user_id, agent_id, llm, max_tokens, source_id)
        ContextProvider.__init__(self, source)
        self.context_prompt = self.DEFAULT_CONTEXT_PROMPT if context_prompt is None \
            else check.text(context_prompt, "context_prompt")

    async def before_run(self, *, agent: Any, session: Any, context: Any, state: dict[str, Any]) -> None:
        """Add the user's memories for this run's question to the instructions."""
        place = self._place(_session_id(session, context))
        # the messages the model gets from a graphmem history provider are its newest
        # max_messages; any other history provider (the framework's in-memory one) sends all
        sent = min((p.max_messages for p in _providers(agent)
                    if isinstance(p, GraphMemHistoryProvider) and self._same_user(p) and p.load_messages),
                   default=ALL_SENT)
        block = await self.turns.before(place, _input_text(context.input_messages), sent=sent)
        if block:
            context.extend_instructions(self.source_id, f"{self.context_prompt}\n{block}")

    async def after_run(self, *, agent: Any, session: Any, context: Any, state: dict[str, Any]) -> None:
        """Store the run's messages as episodes of the session (what no graphmem history
        provider on the agent stores already)."""
        place = self._place(_session_id(session, context))
        inputs = outputs = True
        for provider in _providers(agent):
            if isinstance(provider, GraphMemHistoryProvider) and self._same_user(provider):
                inputs, outputs = inputs and not provider.store_inputs, outputs and not provider.store_outputs
        messages = list(context.input_messages) if inputs else []
        if outputs and context.response is not None:
            messages.extend(context.response.messages)
        await self.turns.after(place, turn_messages(messages))


@instrument("graphmem.agent_framework.history")
class GraphMemHistoryProvider(_Provider, HistoryProvider):
    """An Agent Framework ``HistoryProvider`` whose conversations are graphmem episodes:
    session ``session_id`` of ``user_id`` at ``<scope>/<user_id>``, durable, shared by every
    process on the same Neo4j, and recalled from by ``GraphMemContextProvider``, ``recall``
    and ``context_for_turn`` like any other episode.

    ``get_messages`` returns the session's newest ``max_messages`` messages, oldest first,
    with their episode ids as ``message_id`` (tool results are left out: an episode keeps
    text, not a tool call's structure). ``save_messages`` stores the user, assistant and
    system messages with text (``after_turn``, extracted from with ``llm`` in the
    background); a message whose id was stored before is kept once. ``clear`` forgets the
    session. The ``load_messages``/``store_*`` flags are the framework's."""

    DEFAULT_SOURCE_ID: ClassVar[str] = "graphmem_history"

    def __init__(self, memory: Any, *, scope: str, user_id: str, agent_id: str | None = None, llm: Any = None,
                 max_messages: int = 100, source_id: str = DEFAULT_SOURCE_ID, load_messages: bool = True,
                 store_inputs: bool = True, store_outputs: bool = True, store_context_messages: bool = False,
                 store_context_from: set[str] | None = None) -> None:
        source = self._setup(memory, scope, user_id, agent_id, llm, DEFAULT_MAX_TOKENS, source_id)
        self.max_messages = check.count(max_messages, "max_messages", most=ALL_SENT)
        HistoryProvider.__init__(self, source, load_messages=load_messages, store_inputs=store_inputs,
                                 store_outputs=store_outputs, store_context_messages=store_context_messages,
                                 store_context_from=store_context_from)

    async def get_messages(self, session_id: str | None, *, state: dict[str, Any] | None = None,
                           **kwargs: Any) -> list[Message]:
        """The session's messages, oldest first (none for no session)."""
        if session_id is None:
            return []
        episodes = await self.turns.history(self._place(session_id), self.max_messages)
        return [m for m in map(episode_message, episodes) if m is not None]

    async def save_messages(self, session_id: str | None, messages: Sequence[Message], *,
                            state: dict[str, Any] | None = None, **kwargs: Any) -> None:
        """Store ``messages`` as episodes of the session; ``InvalidInputError`` naming
        ``session_id`` without one (nothing is written)."""
        if session_id is None:
            raise InvalidInputError("session_id", "is needed to store a conversation")
        await self.turns.after(self._place(session_id), turn_messages(messages))

    async def clear(self, session_id: str) -> int:
        """Forget the session's episodes (``clear_session``); returns how many."""
        return await self.turns.clear(self._place(session_id))


publish(__name__, globals())
