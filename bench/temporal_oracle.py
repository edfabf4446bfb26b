"""The temporal scenario of bench/graphiti_compare.py and the oracle that answers Graphiti's
contradiction prompt, without Graphiti itself (so the test suite can check them)."""

from __future__ import annotations

import ast
import random
import re
from datetime import datetime, timedelta, timezone

CITIES = ("Lisbon Porto Madrid Berlin Munich Vienna Prague Warsaw Oslo Dublin Paris Lyon Rome Milan "
          "Zurich Geneva Athens Sofia Riga Tallinn").split()
FACT = re.compile(r"^(\S+) lives in (\S+)$")
START = datetime(2015, 1, 1, tzinfo=timezone.utc)


def tagged(text: str, tag: str) -> str | None:
    """The content of the last <tag>...</tag> block (instructions may name the tags earlier)."""
    found = re.findall(rf"<{tag}>\n(.*?)\n</{tag}>", text, flags=re.S)
    return found[-1].strip() if found else None


def block(text: str, tag: str) -> list[dict]:
    content = tagged(text, tag)
    if not content:
        return []
    try:
        return list(ast.literal_eval(content))
    except (ValueError, SyntaxError):
        return []


def judge(text: str) -> dict:
    new = tagged(text, "NEW FACT")
    parsed = FACT.match(new) if new else None
    existing, candidates = block(text, "EXISTING FACTS"), block(text, "FACT INVALIDATION CANDIDATES")
    duplicates, contradicted = [], []
    if parsed:
        for item in existing + candidates:
            other = FACT.match(str(item.get("fact", "")))
            if other and other.group(1) == parsed.group(1):
                if other.group(2) == parsed.group(2):
                    if item in existing:
                        duplicates.append(item["idx"])
                else:
                    contradicted.append(item["idx"])
    return {"duplicate_facts": duplicates, "contradicted_facts": contradicted}


def empty(model) -> dict:
    if model is None:
        return {}
    out = {}
    for field_name, info in model.model_fields.items():
        if info.is_required():
            ann = str(info.annotation)
            out[field_name] = [] if "list" in ann else ({} if "dict" in ann else (False if ann == "<class 'bool'>" else ""))
    return out


def scenario(rng: random.Random, subjects: int, changes: int) -> list[dict]:
    people = []
    for i in range(subjects):
        moves = sorted(rng.sample(range(0, 3000, 30), changes))
        cities = rng.sample(CITIES, changes)
        people.append({"name": f"Person{i:03d}", "moves": [(START + timedelta(days=d), c) for d, c in zip(moves, cities)]})
    return people


def city_at(person: dict, instant: datetime) -> str | None:
    current = None
    for start, city in person["moves"]:
        if start <= instant:
            current = city
    return current


def tally(score: dict, got: list[tuple[str | None, bool]], expected: str | None) -> None:
    score["top1"] += bool(got) and got[0][0] == expected
    score["stale"] += sum(1 for _, valid in got if not valid)
    score["shown"] += len(got)


def city_of(fact: str) -> str | None:
    m = FACT.match(fact)
    return m.group(2) if m else None


