"""An opened index: the SQLite catalog, the Chroma collections, the entity graph and the manifest.

`open_index` is how every caller opens one (the CLI, the agent's resources, evals, tests): it
loads the embedder a spec names (`indexes.embeddings.make_embedder`) unless given one, and
refuses a folder with no index unless asked to create it. The manifest records the embedder and
refuses another one. Writes go through `indexes.build.Builder`.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from indexes.catalog import Catalog
from indexes.documents import DEFAULT_PASSAGE_CHARS
from indexes.embeddings import Embedder, embed, embedder_name, make_embedder
from indexes.graph import DEFAULT_MERGE_THRESHOLD, EntityGraph
from indexes.stores import (
    LEGACY_PREFIX,
    ChromaIndex,
    VectorIndex,
    chroma_client,
    rename_collections,
    store_name,
)
from indexes.units import ReasoningUnit
from prompts import EXTRACTION_PROMPT_VERSION

SCHEMA_VERSION = "1"
_QUERY_CACHE_SIZE = 4096
_PASSAGE_CACHE_SIZE = 8192


class IndexMismatchError(RuntimeError):
    """The index on disk was built in a way this run cannot extend or read correctly."""


class IndexNotFoundError(FileNotFoundError):
    """No index where one was asked for: only `resin index` makes one."""


class IndexPathError(ValueError):
    """An index path that cannot hold an index: a file, or a folder that cannot be made."""


def missing_index_message(given: Path, base: Path) -> str:
    """Names the folder that holds no index, and for a relative path what it was taken from."""
    where = (base / given.expanduser()).resolve()
    relative = "" if given.expanduser().is_absolute() else f" ({str(given)!r} taken from {base})"
    if where.exists() and not where.is_dir():
        return f"index path {where}{relative} is a file: give --index a folder"
    return f"no resin index at {where}{relative}; build one with `resin index DOCS --index {where}`"


def migrate_command(config: IndexConfig) -> str:
    """The command that moves an index's vectors into its own collections."""
    server = (
        f" --chroma-host {config.chroma_host} --chroma-port {config.chroma_port}"
        if config.chroma_host
        else ""
    )
    return f"resin index --migrate --index {config.path}{server}"


@dataclass
class IndexConfig:
    """Where the index lives and how it is built."""

    path: Path = Path(".resin")
    chroma_host: str | None = None
    chroma_port: int = 8000
    passage_chars: int = DEFAULT_PASSAGE_CHARS
    merge_threshold: float = DEFAULT_MERGE_THRESHOLD


class _VectorCache:
    """A thread-safe LRU map from strings to vectors."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def through(
        self, keys: Sequence[str], load: Callable[[list[str]], dict[str, np.ndarray]]
    ) -> dict[str, np.ndarray]:
        """The vectors of `keys`: cached ones, the rest from `load` (which may not find some)."""
        with self._lock:
            found = {k: self._items[k] for k in keys if k in self._items}
            for key in found:
                self._items.move_to_end(key)
        missing = [k for k in dict.fromkeys(keys) if k not in found]
        if missing:
            fresh = load(missing)
            found.update(fresh)
            with self._lock:
                self._items.update(fresh)
                while len(self._items) > self.size:
                    self._items.popitem(last=False)
        return found


class Index:
    """An opened index: the SQLite catalog, the Chroma collections, the graph and the manifest."""

    def __init__(
        self,
        config: IndexConfig,
        embedder: Embedder,
        create: bool = True,
        migrate: bool = False,
        checking: bool = False,
    ) -> None:
        """Open the index, refusing one built with another embedder.

        `create=False` (readers: ask, chat, stats, the graph) refuses a folder with no index
        rather than answering from an empty one. `migrate` moves the vectors of an index built
        before per-index collection names into its own collections on a Chroma server (an
        embedded store belongs to its index alone and is migrated on open). `checking` (an
        integrity check or repair) opens a graph file that cannot be read as an empty graph.
        """
        self.config = config
        self.embedder = embedder
        self.manifest_path = config.path / "manifest.json"
        if config.path.exists() and not config.path.is_dir():
            raise IndexPathError(f"index path {config.path} is a file: give --index a folder")
        if not create and not self.manifest_path.exists():
            raise IndexNotFoundError(missing_index_message(config.path, Path.cwd()))
        try:
            config.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise IndexPathError(
                f"index folder {config.path} cannot be created: {exc.strerror or exc}"
            ) from None
        self.manifest = self._check_manifest()
        self.catalog = Catalog(config.path / "catalog.sqlite")
        client = chroma_client(config.path, config.chroma_host, config.chroma_port)
        if "collection_prefix" not in self.manifest or self.manifest.get("migrating"):
            self._migrate(client, allowed=migrate or not config.chroma_host)
        self.vectors: VectorIndex = ChromaIndex(
            client,
            self.manifest["collection_prefix"],
            store_name(config.path, config.chroma_host, config.chroma_port),
            create=self.catalog.is_empty(),
        )
        self.graph = EntityGraph(
            config.path / "graph.json", config.merge_threshold, unreadable_ok=checking
        )
        self._query_vectors = _VectorCache(_QUERY_CACHE_SIZE)
        # Passage ids derive from content, so a cached vector never goes stale.
        self._passage_vectors = _VectorCache(_PASSAGE_CACHE_SIZE)
        ids, vecs = self.vectors.vectors("entities")
        keys = [h.metadata.get("key", "") for h in self.vectors.get("entities", ids)] if ids else []
        by_id = dict(zip(ids, vecs, strict=True))
        ordered = [by_id[i] for i in ids]
        self.graph.load_vectors(keys, ordered)
        self._fill_unit_subjects()

    def _fill_unit_subjects(self) -> None:
        """Copy unit subjects from Chroma into a catalog that predates them (once per index)."""
        missing = self.catalog.units_without_subject()
        for start in range(0, len(missing), 5000):
            hits = self.vectors.get("units", missing[start : start + 5000])
            self.catalog.set_unit_subjects((h.id, h.metadata.get("subject", "")) for h in hits)

    def _migrate(self, client: Any, allowed: bool) -> None:
        """Rename the plain `passages`, `units`, `entities` of an older index to its own prefix.

        The prefix is written first (marked `migrating`), so a migration cut short resumes with
        the same names. On a server the plain names may hold other indexes' records too, so the
        user asks for it.
        """
        if not allowed:
            raise IndexMismatchError(
                f"index at {self.config.path} keeps its vectors in the collections passages, "
                f"units and entities that every older index on "
                f"{store_name(self.config.path, self.config.chroma_host, self.config.chroma_port)} "
                f"shares; move them into its own with `{migrate_command(self.config)}` (if "
                "several older indexes used this server, rebuild all but one in new folders)"
            )
        self.manifest.setdefault("index_id", uuid.uuid4().hex[:12])
        self.manifest["collection_prefix"] = f"resin-{self.manifest['index_id']}-"
        self.manifest["migrating"] = True
        self._write_manifest(self.manifest)
        rename_collections(client, LEGACY_PREFIX, self.manifest["collection_prefix"])
        del self.manifest["migrating"]
        self._write_manifest(self.manifest)

    def _check_manifest(self) -> dict[str, Any]:
        name = embedder_name(self.embedder)
        if self.manifest_path.exists():
            manifest = json.loads(self.manifest_path.read_text(encoding="utf-8"))
            if manifest.get("schema_version") != SCHEMA_VERSION:
                raise IndexMismatchError(
                    f"index at {self.config.path} has schema version "
                    f"{manifest.get('schema_version')!r}; this resin reads {SCHEMA_VERSION!r}. "
                    "Rebuild it in a new --index folder."
                )
            if manifest.get("embedder") != name:
                raise IndexMismatchError(
                    f"index at {self.config.path} was built with embedder {manifest.get('embedder')!r}, "
                    f"not {name!r}: its vectors are not comparable. Pass --embedder "
                    f"{manifest.get('embedder')} or choose another --index folder."
                )
            return dict(manifest)
        index_id = uuid.uuid4().hex[:12]
        manifest = {
            "schema_version": SCHEMA_VERSION,
            # Chroma collections are named after the index, so indexes can share a server.
            "index_id": index_id,
            "collection_prefix": f"resin-{index_id}-",
            "embedder": name,
            "prompt_version": EXTRACTION_PROMPT_VERSION,
            "extraction_models": [],
            "created": time.strftime("%Y-%m-%dT%H:%M:%S"),
        }
        self._write_manifest(manifest)
        return manifest

    def _write_manifest(self, manifest: dict[str, Any]) -> None:
        tmp = self.manifest_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(manifest, indent=2), encoding="utf-8")
        tmp.replace(self.manifest_path)

    def record_model(self, model: str) -> None:
        """Note an extractor's key (model and prompt, or parser and rules) in the manifest."""
        models = self.manifest.setdefault("extraction_models", [])
        if model not in models or self.manifest.get("prompt_version") != EXTRACTION_PROMPT_VERSION:
            if model not in models:
                models.append(model)
            self.manifest["prompt_version"] = EXTRACTION_PROMPT_VERSION
            self._write_manifest(self.manifest)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed with the index's embedder."""
        return embed(self.embedder, texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed short texts (queries, names) through an LRU cache: a question's hops reuse them."""
        found = self._query_vectors.through(
            texts, lambda missing: dict(zip(missing, self.embed(missing), strict=True))
        )
        return np.stack([found[t] for t in texts])

    def units(self, unit_ids: Sequence[str]) -> list[ReasoningUnit]:
        """The stored units among `unit_ids` (their full record is Chroma metadata), in no order."""
        found = []
        for start in range(0, len(unit_ids), 5000):
            found += [
                ReasoningUnit.model_validate_json(h.metadata["unit"])
                for h in self.vectors.get("units", unit_ids[start : start + 5000])
            ]
        return found

    def passage_vectors(self, pids: Sequence[str]) -> tuple[list[str], np.ndarray]:
        """The stored passages among `pids` and their vectors, through an LRU cache.

        A bridge hop ranks the same passages its entity was chosen by, moments earlier.
        """
        found = self._passage_vectors.through(
            pids,
            lambda missing: dict(zip(*self.vectors.get_vectors("passages", missing), strict=True)),
        )
        ids = [p for p in dict.fromkeys(pids) if p in found]
        if not ids:
            return [], np.zeros((0, 0), dtype=np.float32)
        return ids, np.stack([found[p] for p in ids])

    def stats(self) -> dict[str, Any]:
        """Documents, passages, units per kind, grounded share, graph size, tokens spent."""
        figures = self.catalog.counts()
        proposed = int(figures["proposed_units"])  # type: ignore[call-overload]
        kept = int(figures["units"])  # type: ignore[call-overload]
        figures["grounded_share"] = round(kept / proposed, 3) if proposed else None
        figures.update(self.graph.stats())
        figures["document_ids"] = [
            {"id": d.doc_id, "title": d.title, "complete": d.complete}
            for d in self.catalog.documents()
        ]
        figures["embedder"] = self.manifest["embedder"]
        figures["extraction_models"] = self.manifest.get("extraction_models", [])
        return figures

    def close(self) -> None:
        """Release the catalog."""
        self.catalog.close()


def open_index(
    path: Path | str,
    embedder: Embedder | str | None = None,
    *,
    create: bool = False,
    migrate: bool = False,
    checking: bool = False,
    chroma_host: str | None = None,
    chroma_port: int = 8000,
    passage_chars: int = DEFAULT_PASSAGE_CHARS,
    merge_threshold: float = DEFAULT_MERGE_THRESHOLD,
) -> Index:
    """Open the index at `path`, with an embedder object or the one a spec names (default MiniLM).

    Only a build creates an index (`create`): a reader given a folder with no index gets
    `IndexNotFoundError` rather than an empty index. `chroma_host`/`chroma_port` put the vectors on
    a Chroma server; `passage_chars` and `merge_threshold` are how a build splits documents and
    merges entity names. `migrate` moves an older index's vectors into its own collections;
    `checking` opens an unreadable graph file as empty, for `indexes.integrity` to report or rebuild.
    """
    config = IndexConfig(
        path=Path(path),
        chroma_host=chroma_host,
        chroma_port=chroma_port,
        passage_chars=passage_chars,
        merge_threshold=merge_threshold,
    )
    if embedder is None or isinstance(embedder, str):
        embedder = make_embedder(embedder)
    return Index(config, embedder, create=create, migrate=migrate, checking=checking)
