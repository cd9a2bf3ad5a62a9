"""The opened index, shared by the nodes of every run in this process."""

from __future__ import annotations

import gc
import logging
import threading
import weakref

from resin.agent.context import Context
from resin.agent.llm import check_model
from resin.indexes.embeddings import Embedder
from resin.indexes.index import Index
from resin.indexes.opening import open_index

log = logging.getLogger("resin")

_LOCK = threading.Lock()
# The indexes the collector was told to skip: frozen once each, when a run first opens one.
_FROZEN: weakref.WeakSet[Index] = weakref.WeakSet()


def context_of(context: Context | None) -> Context:
    """The run's context; callers that pass none get the defaults."""
    return context if context is not None else Context()


def get_index(ctx: Context, embedder: Embedder | None = None) -> Index:
    """The index the context names, through `open_index` (one per process: opening is not cheap).

    A relative `index_path` is taken from the working directory, as `open_index` resolves every
    path. `embedder` replaces `make_embedder(ctx.embedder)` (a benchmark's own vectors). A
    folder with no index is an error: a mistyped `index_path` must not answer from an empty index.
    """
    index = open_index(
        ctx.index_path,
        embedder or ctx.embedder,
        chroma_host=ctx.chroma_host or None,
        chroma_port=ctx.chroma_port,
        database=ctx.database or None,
    )
    with _LOCK:
        if index not in _FROZEN:
            log.info("resin: index %s", index.config.path)
            # The graph's edge dicts and lists (hundreds of thousands at 100k passages) live as
            # long as the process; left to the collector, every full collection scans them all
            # and stalls the question it interrupts. Frozen, they are skipped (refcounting still
            # frees them when the index is closed); collecting first freezes no garbage.
            gc.collect()
            gc.freeze()
            _FROZEN.add(index)
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
