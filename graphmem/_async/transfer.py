"""Export and import of a tenant's memories on ``AsyncMemory`` (format in
``graphmem/_transfer.py``): ids and every timestamp survive, so an export imported into an
empty tenant gives the same graph. ``graphmem/_sync/transfer.py`` is generated from this
file by ``tools/unasync.py``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Mapping
from typing import Any

from .. import _scopes, _transfer
from .._errors import ConflictError, InvalidInputError
from .executor import AsyncTx
from .host import AsyncHost

_PAGE = 1_000


class AsyncTransferMixin(AsyncHost):
    async def export_records(self, *, scope: str | None = None, page: int = _PAGE) -> AsyncIterator[dict[str, Any]]:
        """Yield the tenant's memories (or those in ``scope`` and below) as export records:
        a header, the scopes, every node with all its properties, then every edge between
        two exported nodes. Read page by page (``page`` memories a read), so export a
        tenant nobody writes to meanwhile for an exact copy."""
        path = None if scope is None else _scopes.check_path(scope)
        if not isinstance(page, int) or page < 1:
            raise InvalidInputError("page", "must be a positive integer")
        tenant = self._core.tenant
        yield _transfer.header(tenant, path)
        for row in await self._run.read("scope_tree", tenant=tenant):
            if _transfer.in_subtree(row["path"], path):
                yield {"record": "scope", "path": row["path"]}
        after = ""
        while True:
            rows = await self._run.read("export_nodes", tenant=tenant, scope=path, after=after, limit=page)
            for row in rows:
                props = row["props"]
                yield {"record": "node", "id": row["id"], "kind": props["kind"], "props": _transfer.encode_props(props)}
            if len(rows) < page:
                break
            after = rows[-1]["id"]
        after = ""
        while True:
            rows = await self._run.read("export_edges", tenant=tenant, scope=path, after=after, limit=page)
            for row in rows:
                for edge in row["edges"]:
                    yield {"record": "edge", "type": edge["type"], "source": row["id"], "target": edge["target"],
                           "props": _transfer.encode_props(edge["props"] or {})}
            if len(rows) < page:
                break
            after = rows[-1]["id"]

    async def import_records(self, records: Iterable[Mapping[str, Any]], *, batch_size: int = 500) -> dict[str, int]:
        """Write exported records into this tenant, one transaction per batch of
        ``batch_size`` nodes or edges, keeping ids, timestamps and every property as
        exported. Nodes must come before edges (as ``export_records`` yields them); an id
        the tenant already holds raises ``ConflictError`` and an edge whose ends are missing
        raises ``InvalidInputError``, each rolling back its batch. Returns counts of
        ``scopes``, ``nodes`` and ``edges`` written."""
        if isinstance(records, (Mapping, str, bytes)) or not isinstance(records, Iterable):
            raise InvalidInputError("records", "must be an iterable of export records")
        if not isinstance(batch_size, int) or batch_size < 1:
            raise InvalidInputError("batch_size", "must be a positive integer")
        counts = {"scopes": 0, "nodes": 0, "edges": 0}
        scopes: list[str] = []
        nodes: list[dict[str, Any]] = []
        edges: list[dict[str, Any]] = []
        first = ""
        for i, record in enumerate(records):
            field = f"records[{i}]"
            kind, row = _transfer.parse(record, field)
            if kind == "scope":
                scopes.append(row["path"])
            elif kind == "node":
                if edges or counts["edges"]:
                    raise InvalidInputError(field, "nodes must come before edges")
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
            await self._run.write_one("scope_ensure", tenant=self._core.tenant,
                                      scopes=[dict(s, n=0) for s in _scopes.parents(scopes)])
            counts["scopes"] = len(set(scopes))
        if nodes:
            counts["nodes"] += await self._import_nodes(nodes)
        if edges:
            counts["edges"] += await self._import_edges(edges, first)
        return counts

    async def _import_nodes(self, rows: list[dict[str, Any]]) -> int:
        tenant = self._core.tenant
        ids = [row["props"]["id"] for row in rows]

        async def work(tx: AsyncTx) -> int:
            taken = await tx.run("memory_existing", tenant=tenant, ids=ids)
            if taken:
                raise ConflictError(f"tenant {tenant!r} already holds memory {taken[0]['node']['id']!r}; "
                                    "import into an empty tenant or erase it first")
            await tx.run("scope_ensure", tenant=tenant, scopes=_scopes.parents([row["props"]["scope"] for row in rows
                                                        if row["kind"] != "chunk"]))
            created = await tx.run("import_nodes", tenant=tenant, rows=rows)
            return int(created[0]["created"]) if created else 0

        return await self._run.write(work)

    async def _import_edges(self, rows: list[dict[str, Any]], field: str) -> int:
        tenant = self._core.tenant

        async def work(tx: AsyncTx) -> int:
            created = await tx.run("import_edges", tenant=tenant, rows=rows)
            n = int(created[0]["created"]) if created else 0
            if n != len(rows):
                raise InvalidInputError(field, f"{len(rows) - n} of {len(rows)} edges in this batch name a memory "
                                               "that is neither in the file nor in the tenant")
            return n

        return await self._run.write(work)
