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
from ._pai_messages import latest_prompt, recent_window, turn_messages

__all__ = ["GraphMemCapability", "graphmem_history"]

IdSource = str | Callable[[RunContext[Any]], Any]
"""An id, or a function of the run's ``RunContext`` that returns it (``lambda ctx: ctx.deps.user_id``)."""


@instrument("graphmem.pydantic_ai", names=("before_run", "after_run"))
@dataclass
class GraphMemCapability(AbstractCapability[Any]):
    """A PydanticAI capability (``Agent(capabilities=[...])``, or one run's
    ``agent.run(..., capabilities=[...])``) that reads and writes one application's memory.

    Before a run (``before_run``): the prompt block ``context_for_turn`` gives for the run's
    user prompt (the user's notes, profile, the memories that match, the conversation's
    summaries and newest messages) becomes part of the agent's instructions for that run.
    Instructions, unlike a system prompt or a message, are not sent again with later runs'
    history: the model only ever sees the block of the turn it answers. A prompt with no text
    (images only) gets no block.

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
    """A run's copy: the prompt block given to the model ("" before ``before_run``)."""

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
        return run

    def get_instructions(self) -> Any:
        """The run's prompt block as a dynamic instruction (read on each model request of the run)."""

        def memory_block(ctx: RunContext[Any]) -> str:
            return self.block

        return memory_block

    async def before_run(self, ctx: RunContext[Any]) -> None:
        """Read the prompt block for the run's user prompt (``context_for_turn``)."""
        place = self.placement or self.place(ctx)
        self.block = await self.turns.before(place, latest_prompt(ctx.prompt, ctx.messages))

    async def after_run(self, ctx: RunContext[Any], *, result: Any) -> Any:
        """Store the run's new messages (``after_turn``); the result is returned as it is."""
        place = self.placement or self.place(ctx)
        await self.turns.after(place, turn_messages(result.new_messages(), run_id=ctx.run_id, tools=self.tool_calls))
        return result


def graphmem_history(max_messages: int = 20) -> ProcessHistory[Any]:
    """The history processor for an agent whose conversation graphmem keeps (PydanticAI 2.x
    dropped ``Agent(history_processors=...)``; this is its replacement,
    ``ProcessHistory``, ready to pass in ``capabilities``; its function is ``.processor``).

    Before each model request it keeps the newest ``max_messages`` messages of the history,
    cut where a user turn starts (a tool return never loses its call; the current turn is
    kept whole), and moves the system prompts of what it cut to the first message kept.
    Like every ``ProcessHistory`` it changes the run's history, so ``result.all_messages()``
    is the window too and a history passed back run after run stays short. What is cut is
    not lost with ``GraphMemCapability`` beside it: every run is stored in the conversation's
    session, and its block brings back the session's newest messages and summaries and the
    older turns that match the question."""
    limit = check.count(max_messages, "max_messages")

    async def keep_recent(messages: list[ModelMessage]) -> list[ModelMessage]:
        return recent_window(messages, limit)

    return ProcessHistory(keep_recent)


publish(__name__, globals())
