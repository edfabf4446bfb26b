"""graphmem for PydanticAI: a capability that gives an agent its user's memory before each
run and stores the run after it, and a history processor that keeps the prompt's history
short while graphmem keeps the whole conversation.

``pip install 'graphmem[pydantic-ai]'`` (pydantic-ai-slim 2.x). Both take a ``Memory`` or an
``AsyncMemory``. The tenant is the memory's and the scope the application's; the user id
comes from the application (a string, or a function of the run's ``RunContext``, e.g. of
its ``deps``), never from a model or a prompt. Each user gets the scope ``<scope>/<user>``
(``TurnMemory``), so two users of one agent never read each other's memories.
"""

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai import RunContext
from pydantic_ai.capabilities import AbstractCapability, ProcessHistory
from pydantic_ai.exceptions import UserError
from pydantic_ai.messages import ModelMessage

from .._base import validate as check
from .._base.errors import InvalidInputError
from .._base.public import publish
from .._base.traced import instrument
from ._agent_turns import DEFAULT_MAX_TOKENS, Placement, TurnMemory
from ._pai_messages import latest_prompt, recent_window, stored_count, turn_messages

__all__ = ["GraphMemCapability", "graphmem_history"]

IdSource = str | Callable[[RunContext[Any]], Any]
"""An id, or a function of the run's ``RunContext`` that returns it (``lambda ctx: ctx.deps.user_id``)."""


@instrument("graphmem.pydantic_ai", names=("memory_block", "after_run"))
@dataclass
class GraphMemCapability(AbstractCapability[Any]):
    """A PydanticAI capability (``Agent(capabilities=[...])``, or one run's
    ``agent.run(..., capabilities=[...])``) that reads and writes one application's memory.

    Before each model request (``memory_block``, the capability's instruction): the prompt
    block ``context_for_turn`` gives for the run's user prompt (the user's notes and profile,
    the memories that match it, and the conversation's summaries if the application made
    any with ``summarize``) becomes part of the agent's instructions for that request. The
    conversation's messages the request itself sends are not repeated in it, while stored
    ones it no longer sends (cut by ``graphmem_history``) can come back among the memories;
    with another history processor in the run, whose cut cannot be known before the
    request, nothing is left out (a message may then be shown twice, never hidden).
    Instructions, unlike a system prompt or a message, are not sent again with later runs'
    history: the model only ever sees the block of the turn it answers. A prompt with no
    text (images only) gets no block.

    After a run (``after_run``): the run's new messages (``result.new_messages()``: user
    prompts, the model's text or structured answer, and, with ``tool_calls``, each tool
    call with its result) are stored with ``after_turn``, learned from with ``llm`` in the
    background. A run that fails stores nothing.

    Ids: ``user_id`` is required, a string or a function of the ``RunContext`` (one agent
    serving many users: ``user_id=lambda ctx: ctx.deps.user_id``); the user's records live
    in ``<scope>/<user_id>``. ``session_id`` defaults to the run's ``conversation_id``
    (``agent.run(..., conversation_id=...)``, else the one on ``message_history``, else a
    fresh one per run); a string or a function fixes it instead. ``agent_id`` is written on
    the records and picks the agent's core notes. Ids are checked when given as strings at
    construction, else when the run starts, before the model is called:
    ``InvalidInputError`` naming the field, nothing read or written.

    The capability's ``id`` is ``"graphmem"``: one given to a run replaces the agent's for
    that run (a run for another user than the agent's default); two in one list are an
    error. Each run works on a copy (``for_run``), so concurrent runs of one agent for
    different users never share a block."""

    memory: Any
    scope: str = field(kw_only=True)
    user_id: IdSource = field(kw_only=True)
    session_id: IdSource | None = field(default=None, kw_only=True)
    agent_id: str | None = field(default=None, kw_only=True)
    llm: Any = field(default=None, kw_only=True)
    max_tokens: int = field(default=DEFAULT_MAX_TOKENS, kw_only=True)
    tool_calls: bool = field(default=True, kw_only=True)
    """Store each tool call answered in the run with its result (a ``tool`` message of
    ``{"tool", "args", "result"}`` JSON; two or more in a run are learned from as a
    procedure). False stores the conversation's text only."""
    id: str | None = field(default="graphmem", kw_only=True)
    turns: TurnMemory = field(init=False, repr=False, compare=False)
    """The checks and calls every adapter shares, built from the fields above."""
    placement: Placement | None = field(default=None, init=False, repr=False, compare=False)
    """A run's copy: where its conversation lives (None on the capability the agent holds)."""
    block: str = field(default="", init=False, repr=False, compare=False)
    """A run's copy: the prompt block given to the model with its latest request."""
    blocks: dict[tuple[Placement, str | None, int], str] = field(default_factory=dict, init=False, repr=False,
                                                                 compare=False)
    """A run's copy: the blocks read, by placement, prompt and ``sent``, so a request that sends
    the same history as the one before (a tool step) reads nothing again."""

    def __post_init__(self) -> None:
        if self.scope is None:
            raise InvalidInputError("scope", "is required: the application's scope, below which each user gets one")
        self.turns = TurnMemory(self.memory, scope=self.scope, agent_id=self.agent_id, llm=self.llm,
                                max_tokens=self.max_tokens)
        if not isinstance(self.tool_calls, bool):
            raise InvalidInputError("tool_calls", "must be True or False")
        if not callable(self.user_id):
            check.identifier(self.user_id, "user_id")
        if self.session_id is not None and not callable(self.session_id):
            check.identifier(self.session_id, "session_id")

    @classmethod
    def combine(cls, capabilities: Any) -> Any:
        """Two graphmem capabilities in one list (or one run's list) are refused unless they
        are the same: merging them would pick one user's memory silently."""
        first, *others = capabilities
        if any(other != first for other in others):
            raise UserError("an agent (or a run) takes one GraphMemCapability; give one per run to serve another user")
        return capabilities[-1]

    @classmethod
    def get_serialization_name(cls) -> str | None:
        """None: not built from an agent spec (YAML/JSON), as it holds a memory and functions."""
        return None

    def _resolve(self, source: IdSource | None, ctx: RunContext[Any]) -> Any:
        return source(ctx) if callable(source) else source

    def place(self, ctx: RunContext[Any]) -> Placement:
        """Where the run of ``ctx`` lives: its user's scope and the ids written on its records."""
        session = self._resolve(self.session_id, ctx) if self.session_id is not None else ctx.conversation_id
        return self.turns.place(self._resolve(self.user_id, ctx), session)

    async def for_run(self, ctx: RunContext[Any]) -> "GraphMemCapability":
        """A copy of the capability for one run, placed (its ids resolved and checked)."""
        run = copy.copy(self)
        run.placement = self.place(ctx)
        run.block = ""
        run.blocks = {}
        return run

    def get_instructions(self) -> Any:
        """``memory_block``: a dynamic instruction, read before each model request of the run."""
        return self.memory_block

    async def memory_block(self, ctx: RunContext[Any]) -> str:
        """The prompt block for this model request: ``context_for_turn`` for the run's user
        prompt, leaving out the conversation's messages the request sends (``_sent_messages``)."""
        place = self.placement or self.place(ctx)
        key = (place, latest_prompt(ctx.prompt, ctx.messages), _sent_messages(ctx, tools=self.tool_calls))
        if key not in self.blocks:
            self.blocks[key] = await self.turns.before(place, key[1], sent=key[2])
        self.block = self.blocks[key]
        return self.block

    async def after_run(self, ctx: RunContext[Any], *, result: Any) -> Any:
        """Store the run's new messages (``after_turn``); the result is returned as it is."""
        place = self.placement or self.place(ctx)
        await self.turns.after(place, turn_messages(result.new_messages(), run_id=ctx.run_id, tools=self.tool_calls))
        return result


@dataclass
class _KeepRecent(ProcessHistory[Any]):
    """``graphmem_history``'s capability: a ``ProcessHistory`` that says its window."""

    max_messages: int = 20


def _sent_messages(ctx: RunContext[Any], *, tools: bool) -> int:
    """How many of the conversation's stored messages the coming model request sends: the
    ``sent`` of ``TurnMemory.before``, counted as ``after_run`` stores them (``stored_count``).

    PydanticAI 2.78 resolves a request's instructions (``_prepare_request``) before it runs the
    history processors (``ProcessHistory.before_model_request``), so the block cannot wait for
    the processed history; editing the resolved instruction parts afterwards could not add a
    block where the one resolved was empty. It need not wait: ``graphmem_history``'s window is
    a pure function of the history, applied here to the same messages the processor gets
    (``ctx.messages``, the current request included), once per request, so a tool step that
    makes the window cut more is followed too. Any other processor's result cannot be known
    in advance: with one in the run nothing is taken as sent (0), so the block may repeat a
    message the model also sees but never hides one it does not. A capability that drops
    messages in its own ``before_model_request`` is not seen. The history is taken to be the
    conversation's own, passed back run after run, so its earlier runs' messages are the
    session's newest episodes."""
    kept = list(ctx.messages)
    for capability in ctx.capabilities.values():
        if isinstance(capability, _KeepRecent):
            kept = recent_window(kept, capability.max_messages)
        elif isinstance(capability, ProcessHistory):
            return 0
    return stored_count(kept, run_id=ctx.run_id, tools=tools)


def graphmem_history(max_messages: int = 20) -> ProcessHistory[Any]:
    """The history processor for an agent whose conversation graphmem keeps (PydanticAI 2.x
    dropped ``Agent(history_processors=...)``; this is its replacement,
    ``ProcessHistory``, ready to pass in ``capabilities``; its function is ``.processor``).

    Before each model request it keeps the newest ``max_messages`` messages of the history,
    cut where a user turn starts (a tool return never loses its call; the current turn is
    kept whole), and moves the system prompts of what it cut to the first message kept.
    Like every ``ProcessHistory`` it changes the run's history, so ``result.all_messages()``
    is the window too and a history passed back run after run stays short. With
    ``GraphMemCapability`` beside it every run is stored in the conversation's session, and
    the capability knows the window: the turns it cut can come back in the block among the
    memories when they match the prompt, while the turns it keeps are not repeated there.
    Nothing summarizes what was cut unless the application calls ``summarize``."""
    limit = check.count(max_messages, "max_messages")

    async def keep_recent(messages: list[ModelMessage]) -> list[ModelMessage]:
        return recent_window(messages, limit)

    return _KeepRecent(keep_recent, max_messages=limit)


publish(__name__, globals())
