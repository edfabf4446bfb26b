"""The templates' versions per vector slot (graphmem/_base/templates.py, fragments/b/): the
base version reads and writes slot a (``embedding``, ``storeVectors``, ``memory_embedding``),
the ``:b`` version the same statement on slot b (``embeddingB``, ``storeVectorsB``,
``memory_embedding_b``), and ``in_slot`` names the one to run."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from graphmem import TemplateError
from graphmem._base import dialect, layout, templates
from graphmem._base.props import CREATES

CYPHER_DIR = Path(__file__).resolve().parents[2] / "cypher"
SLOT_B_FRAGMENTS = {"vector", "staging", "vector_index", "store_vectors", "vector_placed"}
# what a projection may say of slot b's properties in any version: that they are not returned
NULLED_KEYS = re.compile(r"\b(?:embeddingB|storeVectorsB): null\b")
SLOT_B_NAMES = re.compile(r"\b(?:embeddingB|storeVectorsB|memory_embedding_b)\b")
# a memory's slot-a property read or written, or slot a's index named (``row.embedding`` is a
# parameter row's key, ``$embedding`` a parameter, ``{.*, embedding: null}`` a map key)
SLOT_A_ACCESS = re.compile(r"(?<!\brow)\.(?:embedding|storeVectors)\b|\bmemory_embedding\b")
# the one template that names both indexes by design: it reads what the server says of them
BOTH_INDEXES = "schema_vector_info"


def _source(name: str) -> str:
    return templates.files()[name].read_text(encoding="utf-8")


def _statement(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.strip().startswith("//"))


def _masked(name: str, *variants: str) -> str:
    """The statement of ``name`` with ``variants``' fragments, but the two fragments that name
    the other slot on purpose replaced by markers: ``staging`` (the slot a re-embedding fills)
    and ``vector_placed`` (the props' vectors moved to the active slot)."""
    shared = dict(templates.fragments(*variants))
    shared["staging"] = "STAGING(__node__)"
    shared["vector_placed"] = "PLACED(__node__)"
    return _statement(templates.expand(name, _source(name), shared))


def _to_slot_b(text: str) -> str:
    text = re.sub(r"(?<!\brow)\.embedding\b", ".embeddingB", text)
    text = re.sub(r"\.storeVectors\b", ".storeVectorsB", text)
    return re.sub(r"\bmemory_embedding\b", "memory_embedding_b", text)


def _versions() -> list[tuple[str, tuple[str, ...]]]:
    """Every template's base version and Cypher 25 version: (file name, its variants)."""
    out = [(name, ()) for name in templates.names()]
    out += [(name.split(":")[0], (templates.CYPHER25,)) for name in templates.variant_names()
            if name.endswith(f":{templates.CYPHER25}")]
    return out


def _label(version: tuple[str, tuple[str, ...]]) -> str:
    return ":".join([version[0], *version[1]])


def _includes(name: str, fragment: str) -> bool:
    return re.search(r"\{\{\s*" + fragment + r"\b", _source(name)) is not None


def test_no_fragment_includes_the_markers_the_slot_checks_replace():
    """The checks below replace ``staging`` and ``vector_placed`` after the fragments are
    expanded: that holds only while no fragment includes them."""
    for path in sorted(CYPHER_DIR.glob("fragments/**/*.cypher")):
        text = path.read_text(encoding="utf-8")
        assert "{{staging" not in text and "{{vector_placed" not in text, path


def test_the_b_folder_overrides_exactly_the_slot_fragments():
    assert {p.stem for p in (CYPHER_DIR / "fragments" / "b").glob("*.cypher")} == SLOT_B_FRAGMENTS
    base, b = templates.fragments(), templates.fragments(templates.SLOT_B)
    assert set(b) == set(base)
    assert {name for name in base if base[name] != b[name]} >= SLOT_B_FRAGMENTS
    # the fragments that include a slot fragment, at any depth, change with it, and only those
    # (recall's semantic part includes vector_neighbours, which includes the vector property)
    assert {name for name in base if base[name] != b[name]} == SLOT_B_FRAGMENTS | {
        "vector_indexed", "vector_neighbours", "recall_semantic", "recall_graph"}


def test_the_slot_fragments_name_the_layouts_properties_and_indexes():
    for slot, variants in ((layout.SLOT_A, ()), (layout.SLOT_B, (templates.SLOT_B,))):
        shared = templates.fragments(*variants)
        assert shared["vector"] == f"__node__.{layout.PROPERTIES[slot]}"
        assert shared["vector_index"] == layout.INDEXES[slot]
        assert shared["staging"] == f"__node__.{layout.PROPERTIES[layout.other(slot)]}"
        assert shared["store_vectors"] == "__node__.storeVectors" + ("B" if slot == layout.SLOT_B else "")
        assert shared["vector_indexed"] == f"ON __node__.{layout.PROPERTIES[slot]}"
        assert f"queryNodes('{layout.INDEXES[slot]}'," in shared["vector_neighbours"]
    both = templates.fragments(templates.CYPHER25, templates.SLOT_B)
    assert both["vector_indexed"] == "ON __node__.embeddingB WITH [__node__.tenant]"
    assert "VECTOR INDEX memory_embedding_b FOR $vector" in both["vector_neighbours"]


def test_no_base_fragment_names_slot_b_but_the_two_that_must():
    for variants in ((), (templates.CYPHER25,)):
        for name, text in templates.fragments(*variants).items():
            if name in ("staging", "vector_placed"):
                continue
            assert not SLOT_B_NAMES.search(text), (variants, name, text)
    # staging: a re-embedding on slot a fills slot b; vector_placed: a clause that does nothing
    assert templates.fragments()["vector_placed"] == "FOREACH (_ IN [] | REMOVE __node__.embeddingB, __node__.storeVectorsB)"


@pytest.mark.parametrize("version", _versions(), ids=_label)
def test_the_base_version_never_names_slot_b(version):
    name, variants = version
    text = NULLED_KEYS.sub("", _masked(name, *variants))
    if name == BOTH_INDEXES:
        assert "'memory_embedding', 'memory_embedding_b'" in text
        return
    assert not SLOT_B_NAMES.search(text), SLOT_B_NAMES.findall(text)


@pytest.mark.parametrize("version", _versions(), ids=_label)
def test_a_template_on_slot_a_has_a_b_version_on_slot_b_and_nothing_else_changed(version):
    name, variants = version
    base = _masked(name, *variants)
    b_name = ":".join([name, *variants, templates.SLOT_B])
    reads_a = SLOT_A_ACCESS.search(base) is not None
    if name == BOTH_INDEXES:
        assert reads_a and b_name not in templates.variant_names()
        return
    # a version on slot b: for what the base reads of slot a, or for the other slot it names
    # on purpose (a re-embedding's staging slot, the create templates' placing of the vectors)
    other_slot = _includes(name, "staging") or _includes(name, "vector_placed")
    assert (b_name in templates.variant_names()) == (reads_a or other_slot), b_name
    if b_name not in templates.variant_names():
        return
    b = _masked(name, *variants, templates.SLOT_B)
    assert not SLOT_A_ACCESS.search(b), SLOT_A_ACCESS.findall(b)
    assert b == _to_slot_b(base)
    if reads_a:
        assert SLOT_B_NAMES.search(b)


@pytest.mark.parametrize("b_name", [n for n in templates.variant_names() if n.endswith(":b")])
def test_each_b_version_is_its_file_with_the_b_fragments_and_the_same_signature(b_name):
    name, *variants = b_name.split(":")
    base = templates.get(":".join([name, *variants[:-1]]))
    b = templates.get(b_name)
    parsed = templates.parse(name, _source(name), templates.fragments(*variants))
    expected = templates.as_cypher25(b_name, parsed) if templates.CYPHER25 in variants else parsed
    assert b.name == b_name and b.text == expected.text
    assert b.parameters == base.parameters and b.doc == base.doc
    assert b.text != base.text
    assert "{{" not in b.text


def test_the_base_versions_texts_hold_no_slot_b_vector_access_but_the_allowed_ones():
    """On the texts graphmem sends (not re-expanded): outside the projections that null slot
    b's properties, slot b shows only in the re-embedding templates (staging), the create
    templates (the no-op clause) and the index listing."""
    allowed = {name for name in templates.names() if _includes(name, "staging") or _includes(name, "vector_placed")}
    allowed.add(BOTH_INDEXES)
    naming_b = {name for name in templates.names() if SLOT_B_NAMES.search(NULLED_KEYS.sub("", templates.get(name).text))}
    assert naming_b == allowed
    assert naming_b >= set(CREATES) | {"reembed_write", "reembed_page", BOTH_INDEXES}


def test_the_export_writes_the_active_slots_vectors_under_slot_as_names():
    base, b = templates.get("export_nodes").text, templates.get("export_nodes:b").text
    assert "embedding: m.embedding, embeddingB: null" in base
    assert "storeVectors: m.storeVectors, storeVectorsB: null" in base
    assert "embedding: m.embeddingB, embeddingB: null" in b
    assert "storeVectors: m.storeVectorsB, storeVectorsB: null" in b


def test_the_re_embedding_fills_the_other_slot_in_either_version():
    write, write_b = templates.get("reembed_write").text, templates.get("reembed_write:b").text
    # a memory stranded in the staging slot by an earlier run is filled too (reembedPending), and
    # one owed a vector that has none (written without an embedder, its vector removed), but not
    # a LangGraph store item put without one (index=False)
    owed = "((m.text IS NOT NULL OR m:Chunk) AND coalesce(m.predicate, '') <> 'langgraph_item')"
    assert f"WHERE m.embedding IS NOT NULL OR m.reembedPending = true OR {owed}\n  SET m.embeddingB = row.vector" in write
    assert f"WHERE m.embeddingB IS NOT NULL OR m.reembedPending = true OR {owed}\n  SET m.embedding = row.vector" in write_b
    assert "REMOVE m.reembedPending, m.embeddingRemovedAt" in write
    page, page_b = templates.get("reembed_page").text, templates.get("reembed_page:b").text
    assert (f"WHERE m.id > $afterId AND (m.embedding IS NOT NULL OR m.reembedPending = true OR {owed})\n"
            "  AND m.embeddingB IS NULL") in page
    assert (f"WHERE m.id > $afterId AND (m.embeddingB IS NOT NULL OR m.reembedPending = true OR {owed})\n"
            "  AND m.embedding IS NULL") in page_b
    # setup --check counts, in the active slot, the memories owed a vector that have none
    check, check_b = templates.get("store_vector_check").text, templates.get("store_vector_check:b").text
    assert "WITH m, m.embedding IS NOT NULL AS active, m.embeddingB IS NOT NULL AS other" in check
    assert "WITH m, m.embeddingB IS NOT NULL AS active, m.embedding IS NOT NULL AS other" in check_b
    assert "WHERE m.embeddingB IS NULL AND (" in templates.get("memory_vector_check:b").text
    # after a switch from slot b, its version removes slot b's vectors, the store items' too
    assert "REMOVE m.embeddingB, m.storeVectorsB" in templates.get("reembed_clear:b").text
    assert "REMOVE m.embedding, m.storeVectors\n" in templates.get("reembed_clear").text


def test_recall_and_the_vector_index_use_slot_bs_index():
    assert "queryNodes('memory_embedding_b'," in templates.get("recall:b").text
    assert "memory_embedding'" not in templates.get("recall:b").text
    search = templates.get("recall:cypher25:b")
    assert search.text.splitlines()[1] == "CYPHER 25 replan=skip"
    assert "SEARCH m IN (VECTOR INDEX memory_embedding_b FOR $vector WHERE m.tenant = $tenant" in search.text
    assert search.parameters == templates.get("recall:cypher25").parameters
    assert "CREATE VECTOR INDEX memory_embedding_b IF NOT EXISTS FOR (n:Memory) ON n.embeddingB\n" in (
        templates.get("schema_vector:b").text)
    assert "ON n.embeddingB WITH [n.tenant]" in templates.get("schema_vector:cypher25:b").text
    assert "DROP INDEX memory_embedding_b IF EXISTS" in templates.get("schema_vector_drop:b").text


def _creating() -> set[str]:
    """The templates that create :Memory nodes (a long episode's windows among them)."""
    return {name for name in templates.names() if re.search(r"\bCREATE \(\w+:Memory\b", _source(name))}


def test_the_templates_that_place_vectors_are_those_that_create_memories():
    placing = {name for name in templates.names() if _includes(name, "vector_placed")}
    assert placing == _creating()
    assert placing == set(CREATES) | {"episode_chunks_create"}


@pytest.mark.parametrize("name", sorted(_creating() | set(CREATES)))
def test_every_create_template_places_the_vectors_right_after_setting_the_props_in_both_versions(name):
    base, b = templates.get(name).text, templates.get(f"{name}:b").text
    found = re.search(r"^SET (\w+) = (?:\$props|row\.props)\b.*$", base, re.MULTILINE)
    assert found, name
    node = found.group(1)
    assert f"{found.group(0)}\nFOREACH (_ IN [] | REMOVE {node}.embeddingB, {node}.storeVectorsB)\n" in base
    assert (f"{found.group(0)}\nSET {node}.embeddingB = {node}.embedding, {node}.storeVectorsB = {node}.storeVectors\n"
            f"REMOVE {node}.embedding, {node}.storeVectors\n") in b
    assert templates.get(name).parameters == templates.get(f"{name}:b").parameters


def test_in_slot_picks_the_b_version_only_on_slot_b_and_only_where_there_is_one():
    assert templates.in_slot("recall", layout.SLOT_A) == "recall"
    assert templates.in_slot("recall", layout.SLOT_B) == "recall:b"
    assert templates.in_slot("recall:cypher25", layout.SLOT_A) == "recall:cypher25"
    assert templates.in_slot("recall:cypher25", layout.SLOT_B) == "recall:cypher25:b"
    assert templates.in_slot(dialect.template("schema_vector", True), layout.SLOT_B) == "schema_vector:cypher25:b"
    # no b version: projections that null both slots, or nothing about vectors at all
    assert templates.in_slot("memory_get", layout.SLOT_B) == "memory_get"
    assert templates.in_slot("ping", layout.SLOT_B) == "ping"
    assert templates.in_slot(BOTH_INDEXES, layout.SLOT_B) == BOTH_INDEXES


@pytest.mark.parametrize("slot", layout.SLOTS)
def test_in_slot_names_a_template_for_every_template_and_slot(slot):
    for name in [*templates.names(), *(n for n in templates.variant_names() if not n.endswith(":b"))]:
        chosen = templates.in_slot(name, slot)
        assert templates.get(chosen).name == chosen
        if slot == layout.SLOT_B and f"{name}:b" in templates.variant_names():
            assert chosen == f"{name}:b"
        else:
            assert chosen == name


def test_variant_names_hold_the_cypher25_versions_and_the_b_versions_only():
    variants = templates.variant_names()
    assert [n for n in variants if templates.CYPHER25 in n] == [
        "recall:cypher25", "recall:cypher25:b", "schema_vector:cypher25", "schema_vector:cypher25:b"]
    assert not set(variants) & set(templates.names())
    for name in variants:
        base, *rest = name.split(":")
        assert base in templates.names() and rest in ([templates.CYPHER25], [templates.SLOT_B],
                                                        [templates.CYPHER25, templates.SLOT_B]), name
    assert {"recall:b", "schema_vector:b", "schema_vector_drop:b", "export_nodes:b", "reembed_write:b",
            "store_search:b", *(f"{n}:b" for n in CREATES)} <= set(variants)
    assert "memory_get:b" not in variants and "ping:b" not in variants


def test_a_constant_included_as_a_node_fragment_is_refused():
    with pytest.raises(TemplateError, match=re.escape("template 'x' includes a constant as {{vector_index(m)}}")):
        templates.expand("x", "RETURN '{{vector_index(m)}}'", {"vector_index": "memory_embedding"})
    with pytest.raises(TemplateError, match="includes a constant"):
        templates.parse("x", "// name: x\n// doc\nCALL db.index.vector.queryNodes('{{vector_index(m)}}', 1, $v)\n",
                        templates.fragments())


def test_a_node_fragment_included_as_a_constant_is_refused():
    with pytest.raises(TemplateError, match=re.escape("template 'x' includes a fragment of a node as {{vector}}")):
        templates.expand("x", "RETURN {{vector}}", {"vector": "__node__.embedding"})
    with pytest.raises(TemplateError, match="includes a fragment of a node"):
        templates.parse("x", "// name: x\n// doc\nMATCH (m) RETURN {{ vector }}\n", templates.fragments())


def test_constants_and_node_fragments_expand_each_their_own_way():
    shared = {"vector_index": "memory_embedding_b", "vector": "__node__.embeddingB"}
    assert (templates.expand("x", "CALL q('{{vector_index}}', {{vector(m)}}, {{ vector(o) }})", shared)
            == "CALL q('memory_embedding_b', m.embeddingB, o.embeddingB)")


def _write(folder: Path, name: str, body: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.cypher").write_text(f"// fragment: {name}\n// doc\n{body}\n", encoding="utf-8")


def test_a_fragment_that_includes_a_node_fragment_as_a_constant_fails_at_load(tmp_path, monkeypatch):
    _write(tmp_path / "fragments", "vector", "__node__.embedding")
    _write(tmp_path / "fragments", "wrong", "RETURN {{vector}}")
    monkeypatch.setattr(templates, "template_dir", lambda: tmp_path)
    templates.fragments.cache_clear()
    try:
        with pytest.raises(TemplateError, match=re.escape("'fragment wrong' includes a fragment of a node as {{vector}}")):
            templates.fragments()
    finally:
        templates.fragments.cache_clear()


def test_a_b_fragment_needs_a_base_fragment(tmp_path, monkeypatch):
    _write(tmp_path / "fragments", "vector", "__node__.embedding")
    _write(tmp_path / "fragments" / "b", "vector", "__node__.embeddingB")
    _write(tmp_path / "fragments" / "b", "lonely", "__node__.other")
    monkeypatch.setattr(templates, "template_dir", lambda: tmp_path)
    templates.fragments.cache_clear()
    try:
        with pytest.raises(TemplateError, match="fragments/b/ has no base fragment for lonely"):
            templates.fragments(templates.SLOT_B)
        assert templates.fragments()["vector"] == "__node__.embedding"
    finally:
        templates.fragments.cache_clear()
