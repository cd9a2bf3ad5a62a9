"""The vector store: units, passages and entity names in Chroma, behind `base.VectorIndex`.

Chroma is always handed vectors we computed with our own embedder; its collections are created
without an embedding function, so it can never fall back to its download-on-first-use default.
Each index names its collections with its own prefix (recorded in its manifest), so any number of
indexes share one Chroma server without touching each other's records.
"""

from __future__ import annotations

import errno
import functools
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar

import numpy as np

from resin.indexes.base import Hit, Vector, Vectors

COLLECTIONS = ("units", "passages", "entities")
# The prefix of indexes built before per-index collections: the plain names above.
LEGACY_PREFIX = ""
_BATCH = 1000


class StoreError(RuntimeError):
    """A store that failed under a run (server gone, disk full, locked): named, with what to do."""


def store_failure(where: str, exc: BaseException) -> StoreError:
    """One line naming the store, the cause and what to do; builds are ordered so a rerun resumes."""
    cause = " ".join(str(exc).split()) or type(exc).__name__
    lowered = cause.lower()
    if getattr(exc, "errno", None) == errno.ENOSPC or ("disk" in lowered and "full" in lowered):
        advice = "the disk is full: free some space"
    elif "locked" in lowered:
        advice = "another process holds it (another `resin index`?): wait until it ends"
    elif where.startswith("Chroma server"):
        advice = "start the server (or fix --chroma-host/--chroma-port, RESIN_CHROMA_HOST/RESIN_CHROMA_PORT)"
    else:
        advice = "check the folder is writable"
    return StoreError(
        f"{where}: {cause[:200]} — {advice}, then run the command again (the index resumes "
        "where it stopped)"
    )


def store_failures() -> tuple[type[BaseException], ...]:
    """What a store raises when it, not the caller, fails: I/O, a lost server, SQLite errors."""
    import httpx
    from chromadb.errors import InternalError

    return (OSError, sqlite3.OperationalError, httpx.TransportError, InternalError)


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _guarded(
    method: Callable[Concatenate[ChromaIndex, _P], _R],
) -> Callable[Concatenate[ChromaIndex, _P], _R]:
    """A store method whose store failures become one `StoreError` naming the store."""

    def wrapper(self: ChromaIndex, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return method(self, *args, **kwargs)
        except store_failures() as exc:
            raise store_failure(self.where, exc) from exc

    functools.update_wrapper(wrapper, method)
    return wrapper


class StoreMissingError(RuntimeError):
    """An index's collections are not in the Chroma store it was opened with."""


def collection_names(client: Any) -> set[str]:
    """The names of every collection in a Chroma store."""
    return {c.name for c in client.list_collections()}


def rename_collections(client: Any, old_prefix: str, new_prefix: str) -> list[str]:
    """Rename the collections under `old_prefix` that exist to `new_prefix` (a migration step)."""
    present = collection_names(client)
    renamed = []
    for name in COLLECTIONS:
        if old_prefix + name in present and new_prefix + name not in present:
            client.get_collection(old_prefix + name, embedding_function=None).modify(
                name=new_prefix + name
            )
            renamed.append(new_prefix + name)
    return renamed


class ChromaIndex:
    """Chroma-backed `VectorIndex`, embedded (PersistentClient) or remote (HttpClient)."""

    @_guarded
    def __init__(self, client: Any, prefix: str, where: str, create: bool) -> None:
        """Open our three cosine collections named `prefix` + kind, creating them if `create`.

        An index that holds documents must find its own collections: created empty on another
        server (or after a lost store) they would answer every search with nothing.
        """
        self.client = client
        self.where = where
        if not create:
            present = collection_names(client)
            missing = [prefix + n for n in COLLECTIONS if prefix + n not in present]
            if missing:
                raise StoreMissingError(
                    f"{where} has no collection {', '.join(missing)}: the index's vectors are "
                    "elsewhere (another Chroma server or folder?) or were deleted; point "
                    "--chroma-host/--chroma-port (RESIN_CHROMA_HOST/RESIN_CHROMA_PORT) at the "
                    "store it was built on, or rebuild it in a new --index folder (RESIN_INDEX)"
                )
        self._collections = {
            name: client.get_or_create_collection(
                prefix + name, embedding_function=None, metadata={"hnsw:space": "cosine"}
            )
            for name in COLLECTIONS
        }

    @_guarded
    def upsert(
        self,
        collection: str,
        ids: Sequence[str],
        vectors: Vectors,
        texts: Sequence[str],
        metadatas: Sequence[dict[str, Any]],
    ) -> None:
        """Insert or replace records, in batches Chroma accepts."""
        target = self._collections[collection]
        for s in range(0, len(ids), _BATCH):
            target.upsert(
                ids=list(ids[s : s + _BATCH]),
                embeddings=np.asarray(vectors[s : s + _BATCH], dtype=np.float32),
                documents=list(texts[s : s + _BATCH]),
                metadatas=[dict(m) for m in metadatas[s : s + _BATCH]],
            )

    @_guarded
    def delete(self, collection: str, ids: Sequence[str]) -> None:
        """Remove records by id."""
        for s in range(0, len(ids), _BATCH):
            self._collections[collection].delete(ids=list(ids[s : s + _BATCH]))

    @_guarded
    def search(
        self, collection: str, vector: Vector, k: int, where: dict[str, Any] | None = None
    ) -> list[Hit]:
        """The k nearest records by cosine similarity."""
        if k <= 0:
            return []
        # no count() guard: it costs milliseconds at 10k records, and an empty collection
        # already answers with empty lists
        res = self._collections[collection].query(
            query_embeddings=np.asarray([vector], dtype=np.float32),
            n_results=k,
            where=where or None,
            include=["documents", "metadatas", "distances"],
        )
        return [
            Hit(i, 1.0 - float(d), t or "", dict(m or {}))
            for i, d, t, m in zip(
                res["ids"][0],
                res["distances"][0],
                res["documents"][0],
                res["metadatas"][0],
                strict=True,
            )
        ]

    @_guarded
    def nearest(self, collection: str, vector: Vector, k: int) -> list[tuple[str, float]]:
        """Ids and similarities only: reading 256 records' metadata costs ten times the search."""
        if k <= 0:
            return []
        res = self._collections[collection].query(
            query_embeddings=np.asarray([vector], dtype=np.float32),
            n_results=k,
            include=["distances"],
        )
        return [
            (i, 1.0 - float(d)) for i, d in zip(res["ids"][0], res["distances"][0], strict=True)
        ]

    @_guarded
    def get(self, collection: str, ids: Sequence[str]) -> list[Hit]:
        """Records by id."""
        if not ids:
            return []
        res = self._collections[collection].get(ids=list(ids), include=["documents", "metadatas"])
        return [
            Hit(i, 1.0, t or "", dict(m or {}))
            for i, t, m in zip(res["ids"], res["documents"], res["metadatas"], strict=True)
        ]

    @_guarded
    def vectors(self, collection: str) -> tuple[list[str], list[list[float]]]:
        """Every id and vector of a collection."""
        res = self._collections[collection].get(include=["embeddings"])
        embeddings = res["embeddings"]
        return list(res["ids"]), [
            list(map(float, v)) for v in (embeddings if embeddings is not None else [])
        ]

    @_guarded
    def ids(self, collection: str) -> list[str]:
        """Every id of a collection."""
        return list(self._collections[collection].get(include=[])["ids"])

    @_guarded
    def get_vectors(self, collection: str, ids: Sequence[str]) -> tuple[list[str], np.ndarray]:
        """The ids found among those given, and their vectors (one row each)."""
        if not ids:
            return [], np.zeros((0, 0), dtype=np.float32)
        res = self._collections[collection].get(ids=list(ids), include=["embeddings"])
        found = list(res["ids"])
        if not found:
            return [], np.zeros((0, 0), dtype=np.float32)
        return found, np.asarray(res["embeddings"], dtype=np.float32)

    @_guarded
    def count(self, collection: str) -> int:
        """Number of records in a collection."""
        return int(self._collections[collection].count())


def store_name(path: Path, host: str | None = None, port: int = 8000) -> str:
    """How messages name the Chroma store of an index."""
    return f"Chroma server {host}:{port}" if host else f"Chroma store {path / 'chroma'}"


def chroma_client(path: Path, host: str | None = None, port: int = 8000) -> Any:
    """Embedded Chroma under `path`, or the Chroma server at `host:port` when a host is given."""
    import chromadb
    from chromadb.config import Settings

    settings = Settings(anonymized_telemetry=False)
    # the HTTP client says "Could not connect to a Chroma server" with a ValueError
    failures: tuple[type[BaseException], ...] = (ValueError, *store_failures())
    try:
        if host:
            return chromadb.HttpClient(host=host, port=port, settings=settings)
        return chromadb.PersistentClient(path=str(path / "chroma"), settings=settings)
    except failures as exc:
        raise store_failure(store_name(path, host, port), exc) from exc
