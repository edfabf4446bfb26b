"""A recorded extraction model for LoCoMo: a langchain-core chat model that answers
``ingest``'s extraction call for a session from the conversation's own ``observation``
field (sentences a language model wrote from the conversation, each naming the turn it rests
on), so the whole fact path (extraction, entities, facts with DERIVED_FROM to their source
turn) runs here without a model.

For the messages of one ``ingest`` call it finds the session they are (by their text), and
answers with the session's speakers as entities and one fact per observation whose source
turn is among the messages: subject the speaker, predicate ``observed``, the sentence as the
fact's text, ``messages`` the number of its source turn. Any other call graphmem makes (the
contradiction check between similar facts) is answered with "nothing contradicts". The
data is read at run time from a file of LoCoMo's format; nothing of it is in the repository.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field, PrivateAttr

PREDICATE = "observed"
_NUMBERED = re.compile(r"^(\d+)\. (\w+): (.*)$")


def _plain(text: str) -> str:
    return " ".join(text.split())


def observations(sample: Mapping[str, Any]) -> dict[str, list[tuple[str, str, list[str]]]]:
    """Session number -> [(speaker, sentence, source turn ids)] of a LoCoMo sample; turn ids
    that name no turn of the conversation are dropped (a few are malformed)."""
    conversation = sample["conversation"]
    turns = {t["dia_id"] for key, value in conversation.items() if re.fullmatch(r"session_\d+", key) for t in value}
    out: dict[str, list[tuple[str, str, list[str]]]] = {}
    for key, by_speaker in (sample.get("observation") or {}).items():
        number = key.split("_")[1]
        for speaker, items in by_speaker.items():
            for item in items:
                sentence, sources = item[0], item[1]
                ids = [s.strip() for s in (sources if isinstance(sources, list) else [sources])]
                ids = [s for s in ids if s in turns]
                if ids and isinstance(sentence, str) and sentence.strip():
                    out.setdefault(number, []).append((speaker, sentence, ids))
    return out


class RecordedExtraction(BaseChatModel):
    """Answers graphmem's extraction calls from LoCoMo observations (see the module text).
    ``texts`` maps a turn's stored content (as the benchmark wrote it) to its ``dia_id``;
    ``tally`` counts the requests (``calls``) and the facts handed out (``facts``), shared
    by the copies ``with_structured_output`` binds."""

    texts: dict[str, str]
    facts_by_turn: dict[str, list[tuple[str, str]]]
    tally: dict[str, int] = Field(default_factory=lambda: {"calls": 0, "facts": 0})
    _schema: str = PrivateAttr(default="")

    @classmethod
    def from_samples(cls, samples: Iterable[Mapping[str, Any]], turn_text: Any) -> RecordedExtraction:
        """A model for the conversations ``samples``; ``turn_text(turn)`` is the content the
        benchmark stores for a turn (the model recognises the messages by it)."""
        texts: dict[str, str] = {}
        by_turn: dict[str, list[tuple[str, str]]] = {}
        for sample in samples:
            prefix = sample["sample_id"]
            conversation = sample["conversation"]
            for key, value in conversation.items():
                if re.fullmatch(r"session_\d+", key):
                    for turn in value:
                        texts[_plain(turn_text(turn))] = f"{prefix}/{turn['dia_id']}"
            for items in observations(sample).values():
                for speaker, sentence, ids in items:
                    by_turn.setdefault(f"{prefix}/{ids[0]}", []).append((speaker, sentence))
        return cls(texts=texts, facts_by_turn=by_turn, tally={"calls": 0, "facts": 0})

    @property
    def _llm_type(self) -> str:
        return "recorded-locomo-extraction"

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any) -> Any:
        names = [getattr(t, "__name__", None) or (t.get("name") if isinstance(t, dict) else None) for t in tools]
        bound = self.model_copy()
        bound._schema = names[0] or ""
        return bound

    def _answer(self, messages: list[BaseMessage]) -> dict[str, Any]:
        if self._schema != "Extraction":  # the contradiction check: nothing contradicts
            return {"verdicts": []}
        prompt = "\n".join(str(m.content) for m in messages if m.type == "human")
        entities: dict[str, dict[str, Any]] = {}
        facts = []
        for line in prompt.splitlines():
            found = _NUMBERED.match(line)
            if not found:
                continue
            number, content = int(found.group(1)), _plain(found.group(3))
            turn = self.texts.get(content)
            for speaker, sentence in self.facts_by_turn.get(turn or "", []):
                entities.setdefault(speaker, {"name": speaker, "type": "person", "aliases": []})
                facts.append({"subject": speaker, "predicate": PREDICATE, "text": sentence, "messages": [number]})
        self.tally["facts"] += len(facts)
        return {"entities": list(entities.values()), "facts": facts}

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        self.tally["calls"] += 1
        args = self._answer(messages)
        call = {"name": self._schema or "Extraction", "args": args, "id": f"recorded-{self.tally['calls']}"}
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content="", tool_calls=[call]))])
