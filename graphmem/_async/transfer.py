"""Export and import of a tenant's memories (format in
``graphmem/_memory/transfer.py``): ids and every timestamp survive, so an export imported into an
empty tenant gives the same graph. ``graphmem/_sync/transfer.py`` is generated from this
file by ``tools/unasync.py``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator, Mapping
from typing import Any

from .._base import scopes as _scopes
from .._base.errors import ConflictError, InvalidInputError
from .._base.kinds import LABELS
from .._base.records import NodeRow
from .._base.scopes import ScopeRow
from .._base.traced import instrument
from .._memory import import_rules, transfer
from .._memory.transfer import CreatedRow, EdgesExportRow, HeldEdgeRow, NodeExportRow
from .backend import AsyncStore
from .executor import AsyncTx

_PAGE = 1_000


@instrument("graphmem", names=("import_records",))
class AsyncTransfer:
    """Export and import of one tenant's memories (``AsyncMemory`` hands these calls to it)."""

    def __init__(self, store: AsyncStore) -> None:
        self._store = store

    async def export_records(self, *, scope: str | None = None, page: int = _PAGE) -> AsyncIterator[dict[str, Any]]:
        """Yield the tenant's memories (or those in ``scope`` and below) as export records:
        a header, the scopes, every node with all its properties, then every edge between
        two exported nodes. Read page by page (``page`` memories a read), so export a
        tenant nobody writes to meanwhile for an exact copy."""
        path = None if scope is None else _scopes.check_path(scope)
        if not isinstance(page, int) or page < 1:
            raise InvalidInputError("page", "must be a positive integer")
        tenant = self._store.core.tenant
        yield transfer.header(tenant, path)
        for scope_row in await self._store.run.read_as(ScopeRow, "scope_tree", tenant=tenant):
            if transfer.in_subtree(scope_row.path, path):
                yield {"record": "scope", "path": scope_row.path}
        after = ""
        while True:
            nodes = await self._store.run.read_as(NodeExportRow, "export_nodes", tenant=tenant, scope=path,
                                                  after=after, limit=page)
            for node in nodes:
                props = node.props
                yield {"record": "node", "id": node.id, "kind": props["kind"], "props": transfer.encode_props(props)}
            if len(nodes) < page:
                break
            after = nodes[-1].id
        after = ""
        while True:
            sources = await self._store.run.read_as(EdgesExportRow, "export_edges", tenant=tenant, scope=path,
                                                    after=after, limit=page)
            for source in sources:
                for edge in source.edges:
                    yield {"record": "edge", "type": edge["type"], "source": source.id, "target": edge["target"],
                           "props": transfer.encode_props(edge["props"] or {})}
            if len(sources) < page:
                break
            after = sources[-1].id

    async def import_records(self, records: Iterable[Mapping[str, Any]], *, batch_size: int = 500) -> dict[str, int]:
        """Write exported records into this tenant, keeping ids, timestamps and every
        property as exported. The whole file is checked before anything is written: each
        node's properties as the writes check them (``docs/limits.md``), what graphmem derives
        (full-text key, normalised keys) computed again for this tenant, the header first
        (and only there), nodes before edges, no id twice, every edge between memories of
        the file or the tenant, no edge from a memory to itself (but RELATES) and none twice
        (nor one the tenant holds already), an invalidation with its time and its reason, no
        id the tenant already holds. A record that fails raises ``InvalidInputError`` (or
        ``ConflictError`` for a taken id) naming it as ``records[i]``, and nothing is
        written. Then it is written in transactions of ``batch_size`` nodes or edges.
        ``records`` is read twice when it can be (a list, a file reader), else held in
        memory. Returns counts of ``scopes``, ``nodes`` and ``edges`` written."""
        if isinstance(records, (Mapping, str, bytes)) or not isinstance(records, Iterable):
            raise InvalidInputError("records", "must be an iterable of export records")
        if not isinstance(batch_size, int) or batch_size < 1:
            raise InvalidInputError("batch_size", "must be a positive integer")
        if iter(records) is records:  # a one-shot iterator: keep what the check reads
            records = list(records)
        dimension = await self._store.known_dimension()
        await self._check_import(records, dimension)
        counts = {"scopes": 0, "nodes": 0, "edges": 0}
        scopes: list[str] = []
        nodes: list[dict[str, Any]] = []
        edges: list[dict[str, Any]] = []
        first = ""
        for field, kind, row in self._parsed(records, dimension):
            if kind == "scope":
                scopes.append(row["path"])
            elif kind == "node":
                nodes.append(row)
                if len(nodes) >= batch_size:
                    counts["nodes"] += await self._import_nodes(nodes)
                    nodes = []
            elif kind == "edge":
                if nodes:
                    counts["nodes"] += await self._import_nodes(nodes)
                    nodes = []
                edges.append(row)
                first = first or field
                if len(edges) >= batch_size:
                    counts["edges"] += await self._import_edges(edges, first)
                    edges, first = [], ""
        if scopes:
            # scopes that hold no memory of the file are kept too; nodes count themselves in
            await self._store.run.write_one("scope_ensure", tenant=self._store.core.tenant,
                                      scopes=[dict(s, n=0) for s in _scopes.parents(scopes)])
            counts["scopes"] = len(set(scopes))
        if nodes:
            counts["nodes"] += await self._import_nodes(nodes)
        if edges:
            counts["edges"] += await self._import_edges(edges, first)
        return counts

    def _parsed(self, records: Iterable[Mapping[str, Any]], dimension: int | None) -> Iterator[tuple[str, str, Any]]:
        tenant = self._store.core.tenant
        for i, record in enumerate(records):
            field = f"records[{i}]"
            kind, row = transfer.parse(record, field, first=i == 0, tenant=tenant, dimension=dimension)
            yield field, kind, row

    async def _check_import(self, records: Iterable[Mapping[str, Any]], dimension: int | None) -> None:
        """Every check of an import that needs the whole file, before anything is written."""
        nodes: dict[str, str] = {}  # id -> the record that holds it
        ends: dict[str, str] = {}  # an edge end outside the file -> the first edge naming it
        edges: dict[tuple[Any, ...], str] = {}  # an edge's identity -> the record that holds it
        outside: list[tuple[str, dict[str, Any]]] = []  # edges between two memories the file does not hold
        edges_seen = read = False
        for field, kind, row in self._parsed(records, dimension):
            read = True
            if kind == "node":
                if edges_seen:
                    raise InvalidInputError(field, "nodes must come before edges")
                rid = row["props"]["id"]
                if rid in nodes:
                    raise InvalidInputError(f"{field}.props.id", f"{rid!r} is also the id of {nodes[rid]}")
                nodes[rid] = field
            elif kind == "edge":
                edges_seen = True
                key = import_rules.edge_key(row["type"], row["source"], row["target"], row["props"])
                if key in edges:
                    raise InvalidInputError(field, f"repeats the {row['type']} edge of {edges[key]} from "
                                                   f"{row['source']!r} to {row['target']!r}")
                edges[key] = field
                for end in ("source", "target"):
                    if row[end] not in nodes:
                        ends.setdefault(row[end], f"{field}.{end}")
                if row["source"] not in nodes and row["target"] not in nodes:
                    outside.append((field, row))
        if not read:
            raise InvalidInputError("records", "is empty: " + transfer.HEADER_HINT)
        tenant = self._store.core.tenant
        held = {r.node["id"] for chunk in _chunks(sorted({*nodes, *ends}))
                for r in await self._store.run.read_as(NodeRow, "memory_existing", tenant=tenant, ids=chunk)}
        taken = sorted(held & nodes.keys(), key=lambda rid: _position(nodes[rid]))
        if taken:
            raise ConflictError(f"{nodes[taken[0]]}: tenant {tenant!r} already holds memory {taken[0]!r}; "
                                "import into an empty tenant or erase it first")
        missing = sorted(ends.keys() - held, key=lambda rid: _position(ends[rid]))
        if missing:
            raise InvalidInputError(ends[missing[0]], f"{missing[0]!r} is a memory neither in the file nor in the tenant")
        await self._check_held_edges(outside)

    async def _check_held_edges(self, outside: list[tuple[str, dict[str, Any]]]) -> None:
        """An edge of the file between two memories the tenant holds must not be one it holds already."""
        for start in range(0, len(outside), _PAGE):
            page = outside[start:start + _PAGE]
            rows = [{"i": i, "type": row["type"], "source": row["source"], "target": row["target"]}
                    for i, (_, row) in enumerate(page)]
            held = await self._store.run.read_as(HeldEdgeRow, "import_edges_existing", tenant=self._store.core.tenant,
                                                 rows=rows)
            for found in sorted(held, key=lambda r: r.i):
                field, row = page[found.i]
                if import_rules.edge_key(row["type"], row["source"], row["target"], found.props) == \
                        import_rules.edge_key(row["type"], row["source"], row["target"], row["props"]):
                    raise InvalidInputError(field, f"the tenant already holds this {row['type']} edge from "
                                                   f"{row['source']!r} to {row['target']!r}")

    async def _import_nodes(self, rows: list[dict[str, Any]]) -> int:
        tenant = self._store.core.tenant
        ids = [row["props"]["id"] for row in rows]

        async def work(tx: AsyncTx) -> int:
            taken = await tx.run_as(NodeRow, "memory_existing", tenant=tenant, ids=ids)
            if taken:  # written meanwhile by someone else
                raise ConflictError(f"tenant {tenant!r} already holds memory {taken[0].node['id']!r}; "
                                    "import into an empty tenant or erase it first")
            await tx.run("scope_ensure", tenant=tenant, scopes=_scopes.parents([row["props"]["scope"] for row in rows
                                                        if row["kind"] != "chunk"]))
            created = await tx.run_as(CreatedRow, "import_nodes", tenant=tenant, rows=rows, labels=LABELS)
            return created[0].created if created else 0

        return await self._store.run.write(work)

    async def _import_edges(self, rows: list[dict[str, Any]], field: str) -> int:
        tenant = self._store.core.tenant

        async def work(tx: AsyncTx) -> int:
            created = await tx.run_as(CreatedRow, "import_edges", tenant=tenant, rows=rows)
            n = created[0].created if created else 0
            if n != len(rows):  # an end erased meanwhile
                raise InvalidInputError(field, f"{len(rows) - n} of {len(rows)} edges in this batch name a memory "
                                               "that is neither in the file nor in the tenant")
            return n

        return await self._store.run.write(work)


def _chunks(ids: list[str], size: int = _PAGE) -> Iterator[list[str]]:
    for start in range(0, len(ids), size):
        yield ids[start:start + size]


def _position(field: str) -> int:
    """``records[12].source`` -> 12, to report the first failing record of a file."""
    return int(field.split("[", 1)[1].split("]", 1)[0])
