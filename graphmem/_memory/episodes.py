"""Episodes without I/O: the properties of a raw observation (a message, a tool call, an
event). The I/O is in ``_async/entities.py``, beside entities, which episodes mention."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timezone, tzinfo
from typing import Any, TypedDict

from .._base import dates
from .._base import props as _props
from .._base import validate as check
from .._base.errors import InvalidInputError
from .._base.models import Provenance, Status
from .._base.records import Row
from .embedded import windows

ROLES = ("user", "assistant", "tool", "system", "event")
# a long episode (a pasted document or log) is also embedded in overlapping windows
# (_memory/embedded.py), so a question about its middle finds it (an average over the whole
# text blurs its parts)


@dataclass(frozen=True, slots=True)
class WindowsRow(Row):
    """How many windows of long episodes ``episode_chunks_create`` wrote."""

    TEMPLATES = ("episode_chunks_create",)
    written: int


@dataclass(frozen=True, slots=True)
class LinkedRow(Row):
    """How many episodes ``episode_link_next`` linked to the one before them in their session."""

    TEMPLATES = ("episode_link_next",)
    linked: int


class EpisodeRow(TypedDict):
    """One episode as ``episode_create`` writes it."""

    props: _props.Props


class ChunkRow(TypedDict):
    """One window of a long episode, as ``episode_chunks_create`` writes it."""

    episodeId: str
    embedText: str
    props: _props.Props


def chunks(episodes: list[EpisodeRow]) -> list[ChunkRow]:
    """The windows of every episode longer than ``CHUNK_SIZE``: ``:Chunk`` nodes that carry
    only an embedding and point to their episode; recall answers with the episode."""
    out: list[ChunkRow] = []
    for episode in episodes:
        p = episode["props"]
        for n, part in enumerate(windows(p["text"])):
            out.append({"episodeId": p["id"], "embedText": part, "props": {
                "id": f"{p['id']}#{n}", "scope": p["scope"], "position": n, "provenance": p["provenance"],
                "status": p["status"], "sensitivity": p["sensitivity"], "embedding": None,
            }})
    return out


def row(content: Any, *, tenant: str, scope: Any, role: Any, occurred_at: Any, source: Any, id: Any,
        user_id: Any, agent_id: Any, session_id: Any, importance: Any, sensitivity: Any, tags: Any,
        now: datetime, speaker: str | None = None, tz: tzinfo = timezone.utc) -> EpisodeRow:
    """The properties of a new episode. Without an ``id`` it gets one derived from its scope,
    session, role, speaker, time and content, so the same message stored twice is one
    episode. ``refersTo`` holds the moments its time expressions name, resolved against its
    time in ``tz`` (the time anchors of ``_base/dates``)."""
    if role not in ROLES:
        raise InvalidInputError("role", f"{role!r} is not one of {', '.join(repr(r) for r in ROLES)}")
    props = _props.shared(
        tenant, id=id, scope=scope, text=content, text_field="content", max_length=check.MAX_EPISODE_LENGTH,
        provenance=Provenance.USER if role == "user" else Provenance.MANUAL, status=Status.ACTIVE,
        sensitivity=sensitivity, importance=importance, tags=tags, user_id=user_id, agent_id=agent_id,
        session_id=session_id,
    )
    at = check.instant(occurred_at, "occurred_at") or now
    props.update({
        "role": role,
        "occurredAt": at,
        "source": None if source is None else check.name(source, "source"),
        "speaker": speaker,
        "refersTo": [moment for _, _, moment in dates.mentions(props["text"], at, tz)] or None,
    })
    if id is None:
        props["id"] = content_id(props)
    return {"props": props}


def content_id(props: _props.Props) -> str:
    """An episode id from (scope, session, role, time, content, and the user, agent and
    speaker when set): a message stored again without an id finds the first copy, and the
    same words from two people at the same instant are two episodes. (An episode without
    user, agent or speaker keeps the id it had before they counted.)"""
    digest = hashlib.blake2b(digest_size=16)
    owners = [f"{key}={props[key]}" for key in ("userId", "agentId", "speaker") if props.get(key) is not None]
    for part in (props["scope"], props["sessionId"] or "", props["role"], props["occurredAt"].isoformat(),
                 props["text"], *owners):
        digest.update(part.encode("utf-8", "surrogatepass"))
        digest.update(b"\x00")
    return "ep-" + digest.hexdigest()
