"""The opened index, shared by the nodes of every run in this process."""

from __future__ import annotations

import gc
import logging
import threading
from pathlib import Path

from agent.context import Context
from agent.llm import check_model
from indexes.embeddings import Embedder
from indexes.index import Index, IndexNotFoundError, missing_index_message, open_index

log = logging.getLogger("resin")

_LOCK = threading.Lock()
_INDEXES: dict[tuple[Path, str, str, int], Index] = {}
# A relative index path means this directory, whatever a server's working directory becomes later.
START_DIR = Path.cwd()


def index_dir(ctx: Context) -> Path:
    """The context's index folder as an absolute path (a relative one is under `START_DIR`)."""
    return (START_DIR / Path(ctx.index_path).expanduser()).resolve()


def context_of(context: Context | None) -> Context:
    """The run's context; callers that pass none get the defaults."""
    return context if context is not None else Context()


def get_index(ctx: Context, embedder: Embedder | None = None) -> Index:
    """The index the context names, opened once per process (opening Chroma is not cheap).

    `embedder` replaces `make_embedder(ctx.embedder)` on first open (a benchmark's own vectors);
    later calls with the same context get that index. A folder with no index is an error: a
    mistyped `index_path` must not answer from an empty index it just made.
    """
    path = index_dir(ctx)
    key = (path, ctx.embedder, ctx.chroma_host, ctx.chroma_port)
    with _LOCK:
        index = _INDEXES.get(key)
        if index is None:
            if not (path / "manifest.json").exists():
                raise IndexNotFoundError(missing_index_message(Path(ctx.index_path), START_DIR))
            index = open_index(
                path,
                embedder or ctx.embedder,
                chroma_host=ctx.chroma_host or None,
                chroma_port=ctx.chroma_port,
            )
            log.info("resin: index %s", path)
            _INDEXES[key] = index
            # The graph's edge dicts and lists (hundreds of thousands at 100k passages) live as
            # long as the process; left to the collector, every full collection scans them all
            # and stalls a question for 0.4-0.9 s. Frozen, they are skipped (refcounting still
            # frees them when the index is closed); collecting first freezes no garbage.
            gc.collect()
            gc.freeze()
        return index


def check_run(ctx: Context) -> None:
    """Fail before any work when the run's index or one of its model specs cannot be used.

    A missing API key, GGUF file or model server used to surface at compose, after the plan and
    every hop had run; a mistyped index would answer from nothing.
    """
    get_index(ctx)
    specs = {ctx.hop_model, ctx.compose_model} | ({ctx.plan_model} - {"auto", "none", "parsed"})
    for spec in sorted(specs):
        check_model(spec)


def forget_indexes() -> None:
    """Close every cached index (after a rebuild, or between tests)."""
    with _LOCK:
        for index in _INDEXES.values():
            index.close()
        _INDEXES.clear()
