"""An opened index: the SQLite catalog, the Chroma collections, the entity graph and the manifest.

Callers open one with `resin.indexes.opening.open_index`; where it lives is an `IndexConfig`
(`resin.indexes.index_config`). The manifest records the embedder and refuses another one.
Reads are `IndexReads`' methods; writes go through `resin.indexes.build.Builder`.
"""

from __future__ import annotations

import copy
import json
import logging
import time
import uuid
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any

from resin.indexes.base import CatalogStore, GraphStore, LexicalSearch
from resin.indexes.catalog import Catalog
from resin.indexes.embeddings import Embedder, embedder_name
from resin.indexes.graph import EntityGraph
from resin.indexes.index_config import (
    IndexConfig,
    IndexMismatchError,
    IndexPathError,
    migrate_command,
)
from resin.indexes.locks import builder_lock
from resin.indexes.reads import IndexReads
from resin.indexes.stores import (
    LEGACY_PREFIX,
    ChromaIndex,
    chroma_client,
    rename_collections,
    store_name,
)
from resin.prompts import EXTRACTION_PROMPT_VERSION

log = logging.getLogger(__name__)

SCHEMA_VERSION = "1"


class Index(IndexReads):
    """An opened index: the SQLite catalog, the Chroma collections, the graph and the manifest."""

    def __init__(
        self,
        config: IndexConfig,
        embedder: Embedder,
        migrate: bool = False,
        checking: bool = False,
        replica: bool = False,
    ) -> None:
        """Open the index, creating it if the folder holds none, refusing another embedder's.

        `migrate` moves the vectors of an index built before per-index collection names into
        its own collections on a Chroma server (an embedded store belongs to its index alone
        and is migrated on open). `checking` (an integrity check or repair) opens a graph file
        that cannot be read as an empty graph. `replica` (a PostgreSQL index opened to answer,
        not to build or check) loads nothing: its graph and BM25 are read by SQL
        (`resin.indexes.pg_reads`, `resin.indexes.pg_lexical`).
        """
        self.config = config
        self.manifest_path = config.path / "manifest.json"
        catalog: CatalogStore
        graph: GraphStore | None = None
        lexical: LexicalSearch | None = None
        if config.database:
            from resin.indexes.database import require_driver

            require_driver()
            from resin.indexes.pg_catalog import PgCatalog
            from resin.indexes.pg_graph import PgGraph

            catalog = self._pg = PgCatalog(config.database)
            self.manifest = self._check_manifest(embedder_name(embedder))
            if not replica:
                graph = PgGraph(self._pg, config.merge_threshold)
        else:
            self._make_folder()
            self.manifest = self._check_manifest(embedder_name(embedder))
            catalog = Catalog(config.path / "catalog.sqlite")
            graph = EntityGraph(
                config.path / "graph.json", config.merge_threshold, unreadable_ok=checking
            )
        client = chroma_client(config.path, config.chroma_host, config.chroma_port)
        if "collection_prefix" not in self.manifest or self.manifest.get("migrating"):
            self._migrate(client, allowed=migrate or not config.chroma_host)
        vectors = ChromaIndex(
            client,
            self.manifest["collection_prefix"],
            store_name(config.path, config.chroma_host, config.chroma_port),
            create=catalog.is_empty(),
        )
        if graph is None:
            from resin.indexes.pg_lexical import PgLexical
            from resin.indexes.pg_reads import PgGraphReads

            graph, lexical = PgGraphReads(self._pg, vectors), PgLexical(self._pg)
        super().__init__(catalog, graph, vectors, embedder, lexical)
        if not replica:
            self._load_entity_vectors()
        self._fill_unit_subjects()

    def _entity_keys(self, ids: Sequence[str]) -> dict[str, str]:
        """The entity key of each name vector among `ids` (`get` returns records in no order)."""
        return {h.id: h.metadata.get("key", "") for h in self.vectors.get("entities", ids)}

    def _load_entity_vectors(self) -> None:
        """Hand the graph every entity name's vector, for name resolution and `search_entities`."""
        ids, vecs = self.vectors.vectors("entities")
        key_of = self._entity_keys(ids)
        self.graph.load_vectors([key_of.get(i, "") for i in ids], vecs)

    @property
    def generation(self) -> int:
        """The database generation this index holds: its own builds' saves advance it too."""
        return self.graph.generation

    def reloaded(self) -> Index:
        """This replica at the database's latest generation, to be swapped in whole.

        The copy shares the connections, the vector store and the embedder; it reads only the
        generation, and starts its graph's caches and BM25 figures empty.
        """
        from resin.indexes.pg_lexical import PgLexical
        from resin.indexes.pg_reads import PgGraphReads

        fresh = copy.copy(self)
        fresh.graph, fresh.lexical = PgGraphReads(self._pg, self.vectors), PgLexical(self._pg)
        return fresh

    def _make_folder(self) -> None:
        path = self.config.path
        if path.exists() and not path.is_dir():
            raise IndexPathError(
                f"index path {path} is a file: give --index (RESIN_INDEX) a folder"
            )
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise IndexPathError(
                f"index folder {path} cannot be created: {exc.strerror or exc}"
            ) from None

    def build_lock(
        self, wait: bool = True, on_wait: Callable[[str], None] | None = None
    ) -> AbstractContextManager[None]:
        """The one-builder-at-a-time lock: an advisory lock in PostgreSQL, else a file lock."""
        if self.config.database:
            from resin.indexes.pg_schema import pg_builder_lock

            return pg_builder_lock(self.config.database, wait, on_wait)
        return builder_lock(self.config.path, wait, on_wait)

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

    def _read_manifest(self) -> dict[str, Any] | None:
        if self.config.database:
            from resin.indexes.pg_schema import read_manifest

            return read_manifest(self._pg.pool)
        if not self.manifest_path.exists():
            return None
        return dict(json.loads(self.manifest_path.read_text(encoding="utf-8")))

    def _check_manifest(self, name: str) -> dict[str, Any]:
        manifest = self._read_manifest()
        if manifest is not None:
            if manifest.get("schema_version") != SCHEMA_VERSION:
                raise IndexMismatchError(
                    f"index at {self.config.where()} has schema version "
                    f"{manifest.get('schema_version')!r}; this resin reads {SCHEMA_VERSION!r}. "
                    "Rebuild it in a new --index folder (RESIN_INDEX)."
                )
            if manifest.get("embedder") != name:
                raise IndexMismatchError(
                    f"index at {self.config.where()} was built with embedder {manifest.get('embedder')!r}, "
                    f"not {name!r}: its vectors are not comparable. Pass --embedder "
                    f"{manifest.get('embedder')} (RESIN_EMBEDDER) or choose another --index "
                    "folder (RESIN_INDEX)."
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
        if self.config.database:
            from resin.indexes.pg_schema import write_manifest

            write_manifest(self._pg.pool, manifest)
            return
        tmp = self.manifest_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(manifest, indent=2), encoding="utf-8")
        tmp.replace(self.manifest_path)

    def collections(self) -> str:
        """The index's own Chroma collections, as a pattern of their names, for messages."""
        return f"{self.manifest['collection_prefix']}*"

    def record_model(self, model: str) -> None:
        """Note an extractor's key (model and prompt, or parser and rules) in the manifest."""
        models = self.manifest.setdefault("extraction_models", [])
        if model not in models or self.manifest.get("prompt_version") != EXTRACTION_PROMPT_VERSION:
            if model not in models:
                models.append(model)
            self.manifest["prompt_version"] = EXTRACTION_PROMPT_VERSION
            self._write_manifest(self.manifest)

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
        """Release the catalog; the next `open_index` of this folder opens it afresh.

        Any generation of the index closes it (they share the catalog), and ends its following.
        """
        from resin.indexes.opening import forget

        forget(self)
        self.catalog.close()
