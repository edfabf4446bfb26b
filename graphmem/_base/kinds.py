"""The registry of memory kinds: each kind declared once, with everything the rest of the code
derives from it (docs/architecture.md#adding-a-kind).

A kind is its record model, the node label it is stored under, the template that creates
one, what its node is embedded as, the ``context()`` section it is rendered in, and the rules
an import checks its text against. ``KINDS`` (the values of ``MemoryRecord.kind``),
``records``' model lookup, ``props.CREATES``, the MCP tools' ``Kind``, the labels
``import_nodes.cypher`` sets, ``context()``'s sections, the counts of ``EraseReport`` and the
embedded text of ``_memory/embedded.py`` all read this table; a unit test holds the
templates and the schema to it."""

from __future__ import annotations

from dataclasses import dataclass

from .models import (
    Correction,
    Decision,
    Entity,
    Episode,
    Fact,
    Insight,
    MemoryRecord,
    Note,
    Procedure,
    Summary,
)


@dataclass(frozen=True)
class Kind:
    """One kind of memory record."""

    name: str
    """The value of ``MemoryRecord.kind`` (and the MCP tools' name for it)."""
    model: type[MemoryRecord]
    """The pydantic record a stored node of this kind is read back as."""
    label: str
    """The node label beside ``:Memory`` (a constraint on ``(tenant, id)`` per label)."""
    section: str
    """Its ``context()`` section's name (``sections=[...]``)."""
    title: str
    """Its section's heading in the block."""
    embedded: tuple[str, ...] = ("text",)
    """The properties its vector is made from, joined by new lines, those set only. A fact's
    text alone here: its predicate, when it has one, is added in words by
    ``_memory/embedded.fact_text``, the one rule that is not a list of properties."""
    text_is_name: bool = False
    """Its ``text`` is a name (an entity's): checked as one on import."""
    long_text: bool = False
    """Its ``text`` may be as long as an episode's (``MAX_EPISODE_LENGTH``)."""

    @property
    def create(self) -> str:
        """The template that creates one (``cypher/<name>_create.cypher``)."""
        return f"{self.name}_create"


REGISTRY: tuple[Kind, ...] = (
    Kind("fact", Fact, "Fact", "facts", "Facts"),
    Kind("episode", Episode, "Episode", "episodes", "Episodes", long_text=True),
    Kind("entity", Entity, "Entity", "entities", "Entities", text_is_name=True),
    Kind("insight", Insight, "Insight", "insights", "Insights"),
    Kind("procedure", Procedure, "Procedure", "procedures", "Procedures", embedded=("text", "trigger", "condition")),
    Kind("correction", Correction, "Correction", "corrections", "Corrections"),
    Kind("decision", Decision, "Decision", "decisions", "Decisions", embedded=("text", "reasoning")),
    Kind("note", Note, "Note", "notes", "Core notes"),
    Kind("summary", Summary, "Summary", "summaries", "Summaries"),
)
"""Every kind, in the order graphmem lists them (errors, ``recall(kinds=...)``)."""

KIND: dict[str, Kind] = {kind.name: kind for kind in REGISTRY}
"""Each kind by its name."""

KINDS: tuple[str, ...] = tuple(KIND)
"""Every kind of memory record, the values of ``MemoryRecord.kind`` (one subclass each)."""

CHUNK_LABEL = "Chunk"
"""The label of a long episode's window: stored and exported beside memories, not a kind."""

LABELS: dict[str, str] = {**{kind.name: kind.label for kind in REGISTRY}, "chunk": CHUNK_LABEL}
"""The label of each exported node kind, windows included (``import_nodes.cypher``'s ``$labels``)."""
