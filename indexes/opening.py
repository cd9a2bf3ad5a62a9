"""Opening an index: `open_index`, the indexes a process holds, a database's generations followed.

`open_index` is how every caller opens one (the CLI, the agent's resources, evals, tests): it
resolves the path, loads the embedder a spec names (`resin.indexes.embeddings.make_embedder`)
unless given one, refuses a folder with no index unless asked to create it, and keeps what it
opened for the process's next caller. A replica of a database index swaps each newer
generation in as it is committed.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

from resin.indexes.documents import DEFAULT_PASSAGE_CHARS
from resin.indexes.embeddings import Embedder, embedder_name, make_embedder
from resin.indexes.graph import DEFAULT_MERGE_THRESHOLD
from resin.indexes.index import Index
from resin.indexes.index_config import (
    BackendError,
    IndexConfig,
    IndexNotFoundError,
    missing_index_message,
    resolve_index_path,
)

log = logging.getLogger(__name__)


# The indexes this process has open, by everything that makes two opens differ: config, embedder,
# checking, and replica (a database index opened to answer reads by SQL; a builder's loads).
_Key = tuple[IndexConfig, str, bool, bool]
_OPEN: dict[_Key, Index] = {}
# The stop events of the threads that follow a database index's generations, by the same keys.
_FOLLOWING: dict[_Key, threading.Event] = {}
_OPEN_LOCK = threading.Lock()


def forget(index: Index) -> None:
    """Drop every generation of `index` held here (they share its catalog); stop following it."""
    with _OPEN_LOCK:
        for key in [k for k, held in _OPEN.items() if held.catalog is index.catalog]:
            del _OPEN[key]
            stop = _FOLLOWING.pop(key, None)
            if stop is not None:
                stop.set()


def _follow(key: _Key, url: str) -> None:
    """Swap each newer generation of the database index at `key` in as it is committed.

    The next request that asks `open_index` for it gets the new one; requests under way keep
    theirs. Nothing restarts.
    """
    from resin.indexes.pg_graph import follow

    stop = _FOLLOWING[key] = threading.Event()

    def held() -> int:
        with _OPEN_LOCK:
            index = _OPEN.get(key)
        return index.generation if index is not None else 0

    def renew(generation: int) -> None:
        with _OPEN_LOCK:
            current = _OPEN.get(key)
        if current is None:
            return
        started = time.perf_counter()
        fresh = current.reloaded()
        with _OPEN_LOCK:
            if _OPEN.get(key) is current:
                _OPEN[key] = fresh
        log.info(
            "resin: generation %d of %s loaded in %.2f s",
            fresh.generation,
            fresh.config.where(),
            time.perf_counter() - started,
        )

    threading.Thread(
        target=follow, args=(url, held, renew, stop), name="resin-generations", daemon=True
    ).start()


def open_index(
    path: Path | str,
    embedder: Embedder | str | None = None,
    *,
    create: bool = False,
    migrate: bool = False,
    checking: bool = False,
    chroma_host: str | None = None,
    chroma_port: int = 8000,
    database: str | None = None,
    passage_chars: int = DEFAULT_PASSAGE_CHARS,
    merge_threshold: float = DEFAULT_MERGE_THRESHOLD,
) -> Index:
    """The index at `path`, with an embedder object or the one a spec names (default MiniLM).

    A relative `path` is taken from the working directory of the process that opens it, at the
    moment it opens it (`resolve_index_path`). Opening Chroma and loading the graph is not cheap,
    so the process keeps each index it opened, and a second call with the same folder, embedder
    and settings gets the same `Index` until it is closed (`close_indexes` closes them all).
    Only a build creates an index (`create`): a reader given a folder with no index gets
    `IndexNotFoundError` rather than an empty index. `chroma_host`/`chroma_port` put the vectors on
    a Chroma server; `passage_chars` and `merge_threshold` are how a build splits documents and
    merges entity names. `migrate` moves an older index's vectors into its own collections;
    `checking` opens an unreadable graph file as empty, for `resin.indexes.integrity` to report or rebuild.
    `database` (a postgresql:// URL) keeps the catalog, graph and manifest there, for several
    machines, and needs `chroma_host`; `path` then only places the chat's SQLite checkpoints.
    Opened there to answer (neither `create` nor `checking`), it is a replica that reads its
    graph and BM25 by SQL and follows new generations; a builder's open, in the same process
    too, is another `Index` that loads them.
    """
    if database:
        from resin.indexes.database import check_url

        check_url(database)
    config = IndexConfig(
        path=resolve_index_path(path),
        chroma_host=chroma_host,
        chroma_port=chroma_port,
        database=database or None,
        passage_chars=passage_chars,
        merge_threshold=merge_threshold,
    )
    if config.database and not config.chroma_host:
        raise BackendError(
            "--database keeps the catalog and graph in PostgreSQL for several machines, "
            "so the vectors go to a Chroma server: give --chroma-host (or "
            "RESIN_CHROMA_HOST) too"
        )
    if not create and not _held(config, checking) and not index_exists(config):
        raise IndexNotFoundError(
            f"no resin index in {config.where()}; build one with `resin index DOCS --database "
            "URL --chroma-host HOST` (RESIN_DATABASE_URL, RESIN_CHROMA_HOST)"
            if config.database
            else missing_index_message(path)
        )
    if embedder is None or isinstance(embedder, str):
        embedder = make_embedder(embedder)
    replica = bool(config.database) and not (create or checking)
    key = (config, embedder_name(embedder), checking, replica)
    with _OPEN_LOCK:
        index = _OPEN.get(key)
        if index is None:
            index = _OPEN[key] = Index(config, embedder, migrate, checking, replica)
            if config.database and replica:
                _follow(key, config.database)
        return index


def _held(config: IndexConfig, checking: bool) -> bool:
    """Whether this process holds the index open: it exists, with no query to say so."""
    with _OPEN_LOCK:
        return any(key[0] == config and key[2] == checking for key in _OPEN)


def index_exists(config: IndexConfig) -> bool:
    """Whether an index was built where `config` says."""
    if config.database:
        from resin.indexes.database import require_driver

        require_driver()
        from resin.indexes.pg_schema import has_index

        return has_index(config.database)
    return (config.path / "manifest.json").exists()


def close_indexes() -> None:
    """Close every index this process has open (after a rebuild elsewhere, or between tests)."""
    with _OPEN_LOCK:
        opened = list(_OPEN.values())
    for index in opened:
        index.close()
