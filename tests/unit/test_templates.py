"""Unit tests for the Cypher template loader (graphmem/_base/templates.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem import TemplateError
from graphmem._base import templates
from graphmem._recall import fulltext

CYPHER_DIR = Path(__file__).resolve().parents[2] / "cypher"


def test_parse_reads_name_doc_and_parameters():
    t = templates.parse(
        "fact_get",
        "// name: fact_get\n// Returns one memory.\n// Second doc line.\n"
        "MATCH (m:Memory {tenant: $tenant, id: $id})\nRETURN m\n",
    )
    assert t.name == "fact_get"
    assert t.doc == "Returns one memory.\nSecond doc line."
    assert t.parameters == frozenset({"tenant", "id"})
    assert "MATCH (m:Memory" in t.text


@pytest.mark.parametrize("source", ["// just a comment\nRETURN 1\n", "", "\n// name: x\n// doc\nRETURN 1\n"])
def test_parse_rejects_missing_header(source):
    with pytest.raises(TemplateError, match="first line must be '// name: x'"):
        templates.parse("x", source)


def test_parse_rejects_header_naming_another_template():
    with pytest.raises(TemplateError, match="header names 'y'"):
        templates.parse("x", "// name: y\n// doc\nRETURN 1\n")


@pytest.mark.parametrize("source", [
    "// name: x\nRETURN 1\n",          # no doc line at all
    "// name: x\n//\n//   \nRETURN 1\n",  # only blank doc lines
])
def test_parse_requires_a_doc_line(source):
    with pytest.raises(TemplateError, match="doc line"):
        templates.parse("x", source)


def test_parse_rejects_template_without_statement():
    with pytest.raises(TemplateError, match="no statement"):
        templates.parse("x", "// name: x\n// only documentation\n")


def test_string_literals_are_not_parameters():
    t = templates.parse(
        "x", "// name: x\n// doc\nRETURN 'costs $single' AS a, \"also $double\" AS b, 'esc \\' $esc' AS c, $real\n"
    )
    assert t.parameters == frozenset({"real"})
    t = templates.parse("x", "// name: x\n// doc\nRETURN 'http://example' + $suffix AS url\n")
    assert t.parameters == frozenset({"suffix"})  # '//' inside a string is not a comment


def test_backquoted_names_are_not_parameters():
    t = templates.parse("x", "// name: x\n// doc\nMATCH (n:`Weird$label`) RETURN n.`$prop` AS `$alias`, $p\n")
    assert t.parameters == frozenset({"p"})


def test_comment_lines_are_not_parameters():
    t = templates.parse(
        "x", "// name: x\n// Uses $documented in the doc.\nMATCH (n {id: $id})\n  // a note about $commented\nRETURN n\n"
    )
    assert t.parameters == frozenset({"id"})


def test_template_without_parameters_has_empty_signature():
    t = templates.parse("x", "// name: x\n// doc\nRETURN 1\n")
    assert t.parameters == frozenset()
    t.check({})  # exactly no keys is fine


def _template():
    return templates.parse("t", "// name: t\n// doc\nMATCH (m {tenant: $tenant, id: $id}) RETURN m\n")


def test_check_accepts_exact_keys():
    _template().check({"tenant": "a", "id": "b"})


def test_check_names_missing_keys():
    with pytest.raises(TemplateError) as info:
        _template().check({"tenant": "a"})
    assert "missing id" in str(info.value)
    assert "unexpected" not in str(info.value)


def test_check_names_unexpected_keys():
    with pytest.raises(TemplateError) as info:
        _template().check({"tenant": "a", "id": "b", "extra": 1})
    assert "unexpected extra" in str(info.value)
    assert "missing" not in str(info.value)


def test_check_names_both_missing_and_unexpected():
    with pytest.raises(TemplateError) as info:
        _template().check({"other": 1})
    message = str(info.value)
    assert "'t'" in message
    assert "missing id, tenant" in message
    assert "unexpected other" in message


def test_get_unknown_template_raises():
    with pytest.raises(TemplateError, match="unknown Cypher template 'no_such_template'"):
        templates.get("no_such_template")


def test_names_match_the_cypher_folder():
    on_disk = sorted(p.stem for p in [*CYPHER_DIR.glob("*.cypher"), *CYPHER_DIR.glob("schema/*.cypher")])
    assert on_disk, "no templates found in cypher/"
    assert templates.names() == on_disk


def test_setup_applies_every_statement_of_the_schema_folder():
    assert list(templates.schema_names()) == sorted(p.stem for p in CYPHER_DIR.glob("schema/*.cypher"))
    assert "schema_fulltext" in templates.schema_names()
    assert "schema_vector" not in templates.schema_names()  # its dimension comes from the embedder


def test_fragments_are_expanded_with_the_node_variable_and_count_in_the_signature():
    fragments = {"alive": "(__node__.invalidatedAt IS NULL AND __node__.tenant = $tenant)"}
    t = templates.parse("x", "// name: x\n// doc\nMATCH (n) WHERE {{alive(n)}} RETURN n.id = $id\n", fragments)
    assert "WHERE (n.invalidatedAt IS NULL AND n.tenant = $tenant) RETURN" in t.text
    assert t.parameters == frozenset({"tenant", "id"})


def test_an_unknown_fragment_fails_at_load():
    with pytest.raises(TemplateError, match="unknown fragment 'nope'"):
        templates.parse("x", "// name: x\n// doc\nMATCH (n) WHERE {{nope(n)}} RETURN n\n", {})


@pytest.mark.parametrize("source", ["// fragment: other\n(__node__.a)\n", "// fragment: f\n// only a comment\n"])
def test_a_fragment_needs_its_header_and_a_text(source):
    with pytest.raises(TemplateError):
        templates.parse_fragment("f", source)


def test_a_fragment_without_its_node_is_a_constant_and_is_included_as_one():
    constant = templates.parse_fragment("f", "// fragment: f\n// an index name\nmy_index\n")
    fragments = {"f": constant, "alive": "__node__.alive"}
    t = templates.parse("x", "// name: x\n// doc\nSHOW INDEXES WHERE name = '{{f}}' AND {{alive(n)}}\n", fragments)
    assert "name = 'my_index' AND n.alive" in t.text
    with pytest.raises(TemplateError, match="includes a constant as"):
        templates.parse("x", "// name: x\n// doc\nRETURN {{f(n)}}\n", fragments)
    with pytest.raises(TemplateError, match="includes a fragment of a node as"):
        templates.parse("x", "// name: x\n// doc\nRETURN {{alive}}\n", fragments)


def test_recall_shares_its_filter_and_record_fragments():
    source = (CYPHER_DIR / "recall.cypher").read_text(encoding="utf-8")
    parts = {name: (CYPHER_DIR / "fragments" / f"recall_{name}.cypher").read_text(encoding="utf-8")
             for name in ("semantic", "lexical", "graph", "expand")}
    # the filter on the semantic, lexical and graph sides and on both expansions (the parts);
    # the record, an insight's citations, a fact's sources (recall.cypher)
    assert [parts[name].count("{{recall_filter(") for name in parts] == [1, 1, 1, 2]
    assert source.count("{{record(") == 3
    assert "{{" not in templates.get("recall").text


@pytest.mark.parametrize("name", templates.names())
def test_every_shipped_template_parses_with_doc_and_matching_header(name):
    template = templates.get(name)
    assert template.name == name
    assert template.doc.strip()
    first_line = template.text.splitlines()[0].strip()
    assert first_line.split(":", 1)[1].strip() == name
    # Re-parsing the file gives the same template.
    source = templates.files()[name].read_text(encoding="utf-8")
    assert templates.parse(name, source, templates.fragments()) == template


def test_known_template_signatures():
    assert templates.get("ping").parameters == frozenset()
    assert templates.get("memory_get").parameters == frozenset({"tenant", "id"})


def test_recall_returns_every_temporal_property_as_text():
    """recall.cypher returns datetimes as ISO strings (decoding driver DateTime values cost
    more than the query); a datetime field added to a model must be converted there too."""
    from datetime import datetime
    from typing import get_args

    from graphmem._base import records

    text = templates.get("recall").text
    to_property = {field: prop for prop, field in records._FIELDS.items()}
    fields = [(to_property.get(name, name), info.annotation)
              for cls in records._KINDS.values() for name, info in cls.model_fields.items()]
    temporal = {prop for prop, kind in fields if kind is datetime or datetime in get_args(kind)}
    # a tuple of datetimes (Episode.refers_to) is converted element by element
    lists = {prop for prop, kind in fields if get_args(kind)[:1] == (datetime,) and ... in get_args(kind)}
    assert temporal >= {"createdAt", "validFrom", "occurredAt"} and lists == {"refersTo"}
    for prop in sorted(temporal - lists):
        for var in ("p", "c"):  # the record (its properties(m)) and, for insights, its citations
            assert f"{prop}: toString({var}.{prop})" in text, (prop, var)
    for prop in sorted(lists):
        for var in ("p", "c"):
            assert f"{prop}: [moment IN coalesce({var}.{prop}, []) | toString(moment)]" in text, (prop, var)


def test_recall_projects_exactly_the_properties_its_records_have():
    """Records are built from the properties graphmem's models have, named one by one: no
    m {.*} (it would send the embedding and the lookup keys, and textKey repeats the whole
    text), the record's keys taken from one read of its properties, and a field added to a
    model must be projected here too."""
    import re

    from graphmem._base import records as records

    text = templates.get("recall").text
    assert ".*" not in text
    assert "properties(m) AS p" in text
    to_property = {field: prop for prop, field in records._FIELDS.items()}
    wanted = {to_property.get(name, name) for cls in records._KINDS.values() for name in cls.model_fields}
    wanted = wanted - {"embedding", "supersededBy", "properties"} | {"propertiesJson"}
    for var in ("p", "c"):  # the record (its properties(m)) and, for insights, its citations
        body = re.search(r"\b" + var + r" \{(\.id,.*?)\}", text, re.S).group(1)
        projected = (set(re.findall(r"\.(\w+)\s*(?:,|$)", body)) | set(re.findall(r"(\w+): toString", body))
                     | set(re.findall(r"(\w+): \[moment IN", body)))
        assert projected == wanted, (var, sorted(projected ^ wanted))
        assert not (projected & (records._INTERNAL - {"kind", "propertiesJson"})), var


def test_sent_text_keeps_the_header_and_drops_documentation():
    t = templates.parse("x", "// name: x\n// Long documentation.\n// More.\nMATCH (m)\n  // inline note\nRETURN m\n")
    assert t.text == "// name: x\nMATCH (m)\nRETURN m\n"
    assert t.doc == "Long documentation.\nMore."


def test_recall_keeps_its_cached_plan_and_fixes_every_lookup_by_hint():
    """Re-planning recall costs about a second; its plan must not depend on statistics."""
    text = templates.get("recall").text
    statement = text.splitlines()[1:]
    assert statement[0] == "CYPHER replan=skip"
    assert "USING INDEX s:Scope(tenant, path)" in text
    assert "USING INDEX m:Memory(tenant, scope)" in text


def test_recall_parameters_keep_one_plan_signature():
    """Neo4j caches a plan per parameter types and per size bucket of every string and list
    (1 | 2-10 | 11-100 | 101-1,000 | 1,001-10,000, measured on 5.26), and planning recall
    takes about a second: no ordinary call may land in another bucket."""
    import math
    from datetime import datetime, timezone

    from graphmem._base import kinds
    from graphmem._recall import plan

    now = datetime.now(timezone.utc)

    def signature(scope="a", query="green tea", kind_list=None, purpose="inform", sensitivity=None, strategy=None,
                  boost=1.0, settings=plan.RecallSettings(), **whose):
        params = plan.params(tenant="t", query=query, scope=scope, k=10, vector=[0.1] * 4, as_of=now,
                                valid_at=now, kind_list=kind_list, purpose=purpose, max_sensitivity=sensitivity,
                                include_invalidated=False, settings=settings, strategy=strategy,
                                over_fetch_boost=boost, **whose)
        bucket = lambda n: 0 if n == 0 else math.ceil(math.log10(n))  # noqa: E731
        return {key: (type(value).__name__, bucket(len(value)) if isinstance(value, (str, list)) else None)
                for key, value in params.items()}

    base = signature()
    long_query = " ".join(f"word{i} averyveryverylongword{i}" for i in range(40))
    for other in (signature(scope="a/b"), signature(scope="/".join("abcdefghijklmnopqrstuvwxyz012345")),
                  signature(query=long_query), signature(query="x"), signature(kind_list=["episode"]),
                  signature(kind_list=[]), signature(kind_list=list(kinds.KINDS)), signature(purpose="act"),
                  signature(sensitivity="public"), signature(strategy="exact"), signature(boost=15.0),
                  # an integer over-fetch would be another parameter type: another plan
                  signature(settings=plan.RecallSettings(over_fetch=2)),
                  # a user, agent or session filter, of any id's length (a null would be another type)
                  signature(user_id="alice"), signature(agent_id="x" * 256, session_id="s1"),
                  signature(user_id="u-" + "0" * 40, agent_id="bot", session_id="a" * 120)):
        assert other == base
    params = plan.params(tenant="t", query="green tea", scope="a/b", k=10, vector=None, as_of=now, valid_at=now,
                            kind_list=["episode"], purpose="act", max_sensitivity=None, include_invalidated=False,
                            settings=plan.RecallSettings())
    assert params["chain"][:2] == ["a", "a/b"] and set(params["chain"][2:]) == {""}
    assert params["kinds"] == ["episode", ""] and params["statuses"] == ["active", ""]
    # the full-text query is built in the statement from the words and the scopes' keys
    assert [w for w in params["lexicalWords"] if w] == ["green", "tea"]
    assert params["lexKeys"].rstrip() == fulltext.scope_keys("t", ["a", "a/b"])
    assert params["entityQuery"].rstrip().endswith('+(nameKey:"green" aliasKeys:"green" nameKey:"green tea" '
                                                   'aliasKeys:"green tea" nameKey:"tea" aliasKeys:"tea")')


@pytest.mark.parametrize("k, semantic, lexical", [(1, 10, 20), (10, 10, 20), (15, 15, 30), (50, 50, 100)])
def test_recall_keeps_k_semantic_and_2k_lexical_hits(k, semantic, lexical):
    """The vector side keeps k hits (at least 10: an index neighbour is the dearest row),
    the full-text side 2k (at least 20), over-fetched twice before its filters."""
    from datetime import datetime, timezone

    from graphmem._recall import plan as plan

    now = datetime.now(timezone.utc)
    params = plan.params(tenant="t", query="green tea", scope="a", k=k, vector=None, as_of=now, valid_at=now,
                            kind_list=None, purpose="inform", max_sensitivity=None, include_invalidated=False,
                            settings=plan.RecallSettings())
    assert (params["semanticFetch"], params["fetch"], params["textFetch"]) == (semantic, lexical, 2 * lexical)
    assert params["overFetch"] == 1.5 and params["keep"] == 2 * k and params["shortlist"] == k
