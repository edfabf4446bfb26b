"""PydanticAI's messages as graphmem sees them: the text of a run's user prompt, a run's new
messages as ``after_turn`` messages, how many of them a history holds, and the window of
history ``graphmem_history`` keeps. Pure functions over ``pydantic_ai.messages`` (no I/O)."""

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextContent,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from .._base import validate as check

OUTPUT_KIND = "output"
"""The ``tool_kind`` of the tool calls that carry a structured answer (``output_type``)."""


def prompt_text(prompt: Any) -> str | None:
    """The text of a user prompt (a string, or content whose text items are joined); None
    when it has none (images only, or no prompt)."""
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, Sequence):
        texts = [item if isinstance(item, str) else item.content for item in prompt
                 if isinstance(item, (str, TextContent))]
        return "\n".join(t for t in texts if t.strip()) or None
    return None


def latest_prompt(prompt: Any, messages: Sequence[ModelMessage]) -> str | None:
    """The text the run answers: its prompt, else (a run resumed from history alone) the
    newest user prompt in the history."""
    text = prompt_text(prompt)
    if text is not None:
        return text
    for message in reversed(messages):
        if isinstance(message, ModelRequest):
            for part in reversed(message.parts):
                if isinstance(part, UserPromptPart):
                    return prompt_text(part.content)
    return None


def _user_kind(kind: Any) -> bool:
    """A tool the application defined (no kind, or a namespaced one): not one of the
    framework's own (``tool-search``, ``capability-load``) nor an output tool."""
    return kind is None or (isinstance(kind, str) and "." in kind)


def _result(part: ToolReturnPart) -> Any:
    content = part.content
    if content is None or isinstance(content, (str, int, float, bool)):
        return content
    return part.model_response_str()


def turn_messages(messages: Sequence[ModelMessage], *, run_id: str | None, tools: bool) -> list[dict[str, Any]]:
    """A run's new messages as ``after_turn`` messages: each user prompt (its text) and each
    model response (its text, or a structured answer's JSON) in order; with ``tools``, each
    call of an application tool answered in the run as one ``tool`` message whose content
    is ``{"tool", "args", "result"}`` JSON, the form ``after_turn`` learns procedures from.
    System prompts, retries and the framework's own tools are left out. Each message's id
    is ``<run_id>:<n>``, so a run stored twice (a durable run replayed) is kept once."""
    out: list[dict[str, Any]] = []
    calls: dict[str, ToolCallPart] = {}

    def add(role: str, content: str, when: Any) -> None:
        message: dict[str, Any] = {"role": role, "content": content}
        if when is not None:
            message["occurred_at"] = when
        if run_id is not None:
            message["id"] = f"{run_id}:{len(out)}"
        out.append(message)

    for message in messages:
        if isinstance(message, ModelResponse):
            texts = [p.content for p in message.parts if isinstance(p, TextPart)]
            texts += [p.args_as_json_str() for p in message.parts
                      if isinstance(p, ToolCallPart) and p.tool_kind == OUTPUT_KIND]
            calls.update({p.tool_call_id: p for p in message.parts
                          if isinstance(p, ToolCallPart) and _user_kind(p.tool_kind)})
            if any(t.strip() for t in texts):
                add("assistant", "\n".join(t for t in texts if t.strip()), message.timestamp)
        elif isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, UserPromptPart):
                    text = prompt_text(part.content)
                    if text is not None:
                        add("user", text, part.timestamp)
                elif tools and isinstance(part, ToolReturnPart) and part.tool_call_id in calls:
                    call = calls.pop(part.tool_call_id)
                    body = {"tool": call.tool_name, "args": call.args_as_dict(), "result": _result(part)}
                    add("tool", json.dumps(body, default=str), part.timestamp)
    return out


def stored_count(messages: Sequence[ModelMessage], *, run_id: str | None, tools: bool) -> int:
    """How many episodes of the conversation ``messages`` carry: the messages ``turn_messages``
    makes of those an earlier run added, with text (``TurnMemory.after`` skips the others).
    The current run's (``run_id``) are not stored until it ends; a message without a run id
    (a history built by hand) was never a run's, so never stored by the capability."""
    earlier = [m for m in messages if m.run_id is not None and m.run_id != run_id]
    return sum(1 for m in turn_messages(earlier, run_id=None, tools=tools) if not check.blank(m["content"]))


def recent_window(messages: list[ModelMessage], max_messages: int) -> list[ModelMessage]:
    """The newest messages, at most ``max_messages`` of them, cut where a turn starts (a
    request with a user prompt), so no tool return loses its call; the current turn is
    always kept whole, however long. System prompts of the messages cut away are moved to
    the first one kept."""
    if len(messages) <= max_messages:
        return messages
    starts = [i for i, m in enumerate(messages)
              if isinstance(m, ModelRequest) and any(isinstance(p, UserPromptPart) for p in m.parts)]
    if not starts:
        return messages
    cut = next((i for i in starts if len(messages) - i <= max_messages), starts[-1])
    if cut == 0:
        return messages
    kept = messages[cut:]
    system = [p for m in messages[:cut] if isinstance(m, ModelRequest) for p in m.parts
              if isinstance(p, SystemPromptPart)]
    first = kept[0]
    if system and isinstance(first, ModelRequest):
        kept[0] = dataclasses.replace(first, parts=[*system, *first.parts])
    return kept
