"""The graph a conversation gives without a model, planned without I/O: who spoke each
message (a ``SPOKE`` edge from the speaker's entity) and the entities each message names
(``MENTIONS`` edges with their character spans), folded into one planned entity per name.
The names come from an ``EntityExtractor`` (``_base/ner.py``); the I/O that resolves the
planned entities against the stored ones and writes the edges is ``_async/mentions.py``."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._base import validate as check
from .._base.ner import Mention
from .._base.records import Row

PERSON = "person"
ROLE_TYPES = {"user": "user", "assistant": "agent"}
"""The entity type of a speaker known by role only: the user, or the agent (assistant)."""
ROLE_NAMES = {"user": "user", "assistant": "assistant"}
"""The name of a speaker known by role only, when no user or agent id is given either."""
NAME_TYPES = ("person", "organization", "place", "facility", "product", "event", "work", "group", "language")
"""Types a name found offline may resolve across: the small English pipeline gives one name
several labels ("Caroline" PERSON and NORP), so a stored entity of any of these types with the
name is the one meant; a new one gets the label most mentions gave."""
_TYPE_ORDER = {t: i for i, t in enumerate(NAME_TYPES)}
NICKNAME_LEAST = 3  # letters of a short form ("Mel", "Caro") taken for the start of a speaker's name


@dataclass(frozen=True, slots=True)
class MatchRow(Row):
    """The stored entity (its property map) that planned entity ``i`` of a batch resolved to."""

    TEMPLATES = ("entity_match", "entity_nickname")
    i: int
    node: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ForgottenRow(Row):
    """The name key of an entity the user asked to forget (a name not to write again)."""

    TEMPLATES = ("entity_forgotten",)
    key: str


@dataclass(frozen=True, slots=True)
class MentionsRow(Row):
    """The edges ``episode_mentions`` wrote: MENTIONS, SPOKE, and DERIVED_FROM of new entities."""

    TEMPLATES = ("episode_mentions",)
    mentions: int
    spoke: int
    derived: int


@dataclass
class PlannedEntity:
    """One entity the batch names, before resolution: its name, its type, the other names it
    was given in the batch, and whether it speaks (a speaker is never a short form of another)."""

    name: str
    type: str
    aliases: list[str] = field(default_factory=list)
    speaker: bool = False
    votes: Counter[str] = field(default_factory=Counter)

    @property
    def keys(self) -> list[str]:
        """The lookup keys of its name and aliases."""
        return sorted({check.text_key(n) for n in (self.name, *self.aliases)} - {""})

    @property
    def types(self) -> list[str]:
        """The types a stored entity may have to be this one."""
        return list(NAME_TYPES) if self.type in NAME_TYPES else [self.type]

    @property
    def short(self) -> bool:
        """Whether the name may be a short form of a speaker's ("Mel" for Melanie)."""
        return (not self.speaker and self.type == PERSON and " " not in self.name
                and len(self.name) >= NICKNAME_LEAST)


@dataclass(frozen=True)
class MentionLink:
    """An episode naming an entity, at these spans (``episode.text[start:end]``)."""

    episode: str
    entity: int
    starts: tuple[int, ...]
    ends: tuple[int, ...]
    labels: tuple[str, ...]


@dataclass
class MentionPlan:
    """What one batch of messages writes besides its episodes."""

    entities: list[PlannedEntity] = field(default_factory=list)
    mentions: list[MentionLink] = field(default_factory=list)
    spoke: list[tuple[int, str]] = field(default_factory=list)
    """(planned entity, episode id): who said each message."""


# "Hi, I'm Priya", "my name is Priya": the user says who they are; "Welcome Priya!", "Thanks,
# Priya": the assistant addresses the user by name
_INTRODUCTION = re.compile(r"(?:\bi'?m|\bi am|\bmy name is|\bmy name's|\bcall me|\bthis is)[\s,]*$", re.IGNORECASE)
_ADDRESS = re.compile(r"^\W*(?:hi|hello|hey|welcome(?: back)?|thanks|thank you|good (?:morning|afternoon|evening)|dear)"
                      r"[\s,!.]*$", re.IGNORECASE)


def introduced(messages: Sequence[Mapping[str, Any]], found: Sequence[Sequence[Mention]]) -> str | None:
    """The user's name when the batch gives exactly one and nothing else names the user's
    messages: the user introduces themself ("Hi, I'm Priya") or the assistant greets them by it
    ("Welcome Priya!"); None otherwise."""
    names: dict[str, str] = {}
    for message, mentions in zip(messages, found):
        before = _INTRODUCTION if message["role"] == "user" else _ADDRESS if message["role"] == "assistant" else None
        if before is None or message.get("speaker"):
            continue
        for m in mentions:
            if m.type == PERSON and before.search(message["content"][:m.start]):
                names.setdefault(check.text_key(m.text), " ".join(m.text.split()))
    return next(iter(names.values())) if len(names) == 1 else None


def speaker(message: Mapping[str, Any], who: Mapping[str, Any], user_name: str | None = None) -> tuple[str, str] | None:
    """(name, type) of the entity that said ``message``: the person its ``speaker`` names;
    else, for the user's messages, the person the batch says the user is (``user_name``:
    ``introduced``) or the user (named by ``user_id``, else "user"); for the assistant's,
    the agent (by ``agent_id``, else "assistant"); None for tool, system and event messages,
    which nobody says."""
    if message.get("speaker"):
        return message["speaker"], PERSON
    role = message["role"]
    if role == "user" and user_name:
        return user_name, PERSON
    if role not in ROLE_TYPES:
        return None
    owner = who.get("user_id") if role == "user" else who.get("agent_id")
    return (owner or ROLE_NAMES[role]), ROLE_TYPES[role]


def plan(messages: Sequence[Mapping[str, Any]], episode_ids: Sequence[str], found: Sequence[Sequence[Mention]],
         who: Mapping[str, Any]) -> MentionPlan:
    """The speakers of ``messages`` and the entities ``found`` in them (one list of mentions
    per message), one planned entity per name: a name and its short form as a speaker's
    ("Mel" when Melanie speaks in the batch) are one entity, and so are a first name and the
    only full name in the batch that starts with it; a name the pipeline labels differently
    from one message to the next takes the label most of its mentions gave (a speaker is a
    person). The user's messages are said by the person the batch introduces as the user
    (``introduced``), when it does."""
    out = MentionPlan()
    by_key: dict[str, int] = {}

    def entity(name: str, etype: str, is_speaker: bool) -> int:
        key = check.text_key(name)
        if key in by_key:
            planned = out.entities[by_key[key]]
            planned.speaker = planned.speaker or is_speaker
            return by_key[key]
        by_key[key] = len(out.entities)
        out.entities.append(PlannedEntity(name=" ".join(name.split()), type=etype, speaker=is_speaker))
        return by_key[key]

    user_name = introduced(messages, found)
    for message, episode in zip(messages, episode_ids):
        said = speaker(message, who, user_name)
        if said is not None:
            index = entity(*said, True)
            out.entities[index].votes[said[1]] += 100  # a speaker's own type wins any vote
            out.spoke.append((index, episode))
    speakers = [e for e in out.entities if e.speaker and e.type == PERSON]
    names = [m for ms in found for m in ms]
    full = [m.text for m in names if m.type == PERSON and " " in m.text.strip()] + [e.name for e in speakers]
    spans: dict[tuple[str, int], list[Mention]] = {}
    for message, episode, mentions in zip(messages, episode_ids, found):
        for m in mentions:
            key = check.text_key(m.text)
            if not key or _label(message, m) or not check.nameable(m.text):  # a span across a control character is no name
                continue
            home = None
            if m.type in NAME_TYPES and " " not in key:  # a short form first: labels vary from turn to turn
                home = _longer_name(key, speakers, full, entity)
            if home is None:
                home = by_key.get(key)
            if home is None:
                home = entity(m.text, m.type, False)
            elif check.text_key(out.entities[home].name) != key and key not in {check.text_key(a) for a in out.entities[home].aliases}:
                out.entities[home].aliases.append(" ".join(m.text.split()))
                by_key[key] = home
            out.entities[home].votes[m.type] += 1
            spans.setdefault((episode, home), []).append(m)
    for planned in out.entities:
        if planned.votes:
            planned.type = min(planned.votes, key=lambda t: (-planned.votes[t], _TYPE_ORDER.get(t, len(_TYPE_ORDER)), t))
    for (episode, home), ms in spans.items():
        ms.sort(key=lambda m: m.start)
        out.mentions.append(MentionLink(episode=episode, entity=home, starts=tuple(m.start for m in ms),
                                        ends=tuple(m.end for m in ms), labels=tuple(sorted({m.label for m in ms if m.label}))))
    return out


def _label(message: Mapping[str, Any], mention: Mention) -> bool:
    """Whether ``mention`` is the speaker's own name written as a label before the message
    ("Melanie: I painted a lake"): the speaker, not something the message names."""
    said = message.get("speaker")
    return (mention.start == 0 and isinstance(said, str) and check.text_key(mention.text) == check.text_key(said)
            and message["content"][mention.end:mention.end + 1] == ":")


def _longer_name(key: str, speakers: list[PlannedEntity], full: list[str], entity: Any) -> int | None:
    """The planned entity a one-word person name stands for, if it is the short form of
    exactly one speaker's first name ("mel" of "Melanie"), or the first name of exactly one
    full name in the batch ("caroline" of "Caroline Smith"); None otherwise."""
    if len(key) >= NICKNAME_LEAST:
        starts = {e.name for e in speakers if (first := check.text_key(e.name).split()[0]) != key and first.startswith(key)}
        if len(starts) == 1:
            return int(entity(starts.pop(), PERSON, True))
    longer = {check.text_key(n) for n in full if check.text_key(n).split()[0] == key and " " in check.text_key(n)}
    if len(longer) == 1:
        name = next(n for n in full if check.text_key(n) == next(iter(longer)))
        return int(entity(name, PERSON, False))
    return None
