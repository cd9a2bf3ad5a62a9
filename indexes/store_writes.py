"""The build's writes to the three stores: units in, documents' units and passages out.

Chroma and the graph change first and the graph is saved before the catalog's rows change, so a
kill in between leaves a record of what to redo. In PostgreSQL a batch is one transaction
(`committed_batch`), and the vectors it removes go only after it commits. `scanned` is the
build's set of names every passage was scanned for (`MentionScanner.scanned`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from resin.indexes.base import Hit, Vector, VectorIndex, Vectors
from resin.indexes.documents import Passage, content_hash
from resin.indexes.index import Index
from resin.indexes.units import ReasoningUnit, entity_key


class _DeletesAfterCommit:
    """The vector store as a PostgreSQL batch sees it: its deletions wait for the commit.

    Until then the last committed generation still names those vectors. Ids the batch writes
    again (a changed document's unchanged units, a name dropped and re-added) are not deleted.
    """

    def __init__(self, vectors: VectorIndex) -> None:
        self.held = vectors
        self.deleted: defaultdict[str, set[str]] = defaultdict(set)
        self.written: defaultdict[str, set[str]] = defaultdict(set)

    def apply(self) -> None:
        """Delete what the committed batch removed."""
        for collection, ids in self.deleted.items():
            self.held.delete(collection, sorted(ids - self.written[collection]))

    def upsert(
        self,
        collection: str,
        ids: Sequence[str],
        vectors: Vectors,
        texts: Sequence[str],
        metadatas: Sequence[dict[str, Any]],
    ) -> None:
        self.written[collection].update(ids)
        self.held.upsert(collection, ids, vectors, texts, metadatas)

    def delete(self, collection: str, ids: Sequence[str]) -> None:
        self.deleted[collection].update(ids)

    def search(
        self, collection: str, vector: Vector, k: int, where: dict[str, Any] | None = None
    ) -> list[Hit]:
        return self.held.search(collection, vector, k, where)

    def nearest(self, collection: str, vector: Vector, k: int) -> list[tuple[str, float]]:
        return self.held.nearest(collection, vector, k)

    def get(self, collection: str, ids: Sequence[str]) -> list[Hit]:
        return self.held.get(collection, ids)

    def vectors(self, collection: str) -> tuple[list[str], list[list[float]]]:
        return self.held.vectors(collection)

    def ids(self, collection: str) -> list[str]:
        return self.held.ids(collection)

    def get_vectors(self, collection: str, ids: Sequence[str]) -> tuple[list[str], np.ndarray]:
        return self.held.get_vectors(collection, ids)

    def count(self, collection: str) -> int:
        return self.held.count(collection)


@contextmanager
def committed_batch(index: Index) -> Iterator[None]:
    """One build batch's writes: in PostgreSQL one transaction, its vector deletions after it.

    A builder killed at any point inside leaves the last committed generation whole; killed
    between the commit and the deletions, it leaves vectors no row names, which readers skip
    and `resin index --check --repair` drops. On one machine each write commits on its own.
    """
    if not index.config.database:
        with index.catalog.batch():
            yield
        return
    deferred = _DeletesAfterCommit(index.vectors)
    index.vectors = deferred
    try:
        with index.catalog.batch():
            yield
    finally:
        index.vectors = deferred.held
    deferred.apply()


def remove_content(index: Index, doc_ids: Sequence[str], passages: bool, scanned: set[str]) -> None:
    """Drop documents' units (and passages) from Chroma and the graph, then their unit rows.

    One call per batch, not per document: the graph pass and its save scale with the whole
    index, so re-extracting a large index document by document was quadratic. The catalog's
    unit rows are the record of what to remove, so they go last, after the graph that held
    their provenance is saved: a kill in between repeats the removal.
    """
    if not doc_ids:
        return
    uids = [u for d in doc_ids for u in index.catalog.unit_ids(d)]
    index.vectors.delete("units", uids)
    if passages:
        index.vectors.delete(
            "passages", [p for d in doc_ids for p in index.catalog.doc_passage_ids(d)]
        )
    forget_removed_names(index, index.graph.remove_units(uids), scanned)
    index.graph.save()
    for doc_id in doc_ids:
        index.catalog.delete_units(doc_id)


def store_passage_vectors(index: Index, passages: Sequence[Passage]) -> None:
    """Passages' vectors (of their title and text) and texts into Chroma."""
    if not passages:
        return
    index.vectors.upsert(
        "passages",
        [p.id for p in passages],
        index.embed([f"{p.title}: {p.text}" for p in passages]),
        [p.text for p in passages],
        [{"doc_id": p.doc_id, "title": p.title, "position": p.position} for p in passages],
    )


def store_units(index: Index, units: list[ReasoningUnit], scanned: set[str]) -> None:
    """Units into Chroma, their names clustered into the graph (new names into `entities`)."""
    store_unit_vectors(index, units)
    add_to_graph(index, units, scanned)


def store_unit_vectors(index: Index, units: Sequence[ReasoningUnit]) -> None:
    """Units' vectors and records into Chroma (a unit's whole record is its metadata)."""
    if not units:
        return
    index.vectors.upsert(
        "units",
        [u.id for u in units],
        index.embed([u.text for u in units]),
        [u.text for u in units],
        [
            {
                "kind": u.kind,
                "extractor": u.extractor,
                "subject": entity_key(u.subject),
                "subject_type": u.subject_type,
                "passage_id": u.passage_id,
                "doc_id": u.doc_id,
                "confidence": u.confidence,
                "unit": u.model_dump_json(),
            }
            for u in units
        ],
    )


def add_to_graph(index: Index, units: Sequence[ReasoningUnit], scanned: set[str]) -> None:
    """Units' names clustered into the graph, new names' vectors into `entities`.

    The names of model units wait for the end-of-build mention scan (parser names are not
    scanned for: see `MentionScanner.scan_new_names`).
    """
    if not units:
        return
    names = [n for u in units for n in (u.edge[::2] if u.edge else (u.subject,))]
    index.catalog.add_unscanned(
        k
        for u in units
        if u.extractor != "nlp"
        for n in (u.edge[::2] if u.edge else (u.subject,))
        if (k := entity_key(n)) not in scanned
    )
    first_name: dict[str, str] = {}
    for name in names:
        first_name.setdefault(entity_key(name), name)
    unknown = index.graph.unknown_keys(names)
    vectors = index.embed([first_name[k] for k in unknown])
    index.graph.add_units(units, {k: vectors[i] for i, k in enumerate(unknown)})
    store_entity_vectors(index, unknown, [first_name[k] for k in unknown], vectors)


def store_entity_vectors(
    index: Index, keys: Sequence[str], names: Sequence[str], vectors: np.ndarray | None = None
) -> None:
    """Entity names' vectors (embedded here unless given) into `entities`, by their keys."""
    if not keys:
        return
    index.vectors.upsert(
        "entities",
        [entity_id(k) for k in keys],
        index.embed(names) if vectors is None else vectors,
        list(names),
        [{"key": k, "node": index.graph.node_of(k) or ""} for k in keys],
    )


def entity_id(key: str) -> str:
    """The id of an entity name's vector in `entities`."""
    return "e" + content_hash(key)


def forget_removed_names(index: Index, keys: Sequence[str], scanned: set[str]) -> None:
    """After the graph dropped nodes: their names' vectors, and the mentions of names no title has."""
    index.vectors.delete("entities", [entity_id(k) for k in keys])
    orphaned = [k for k in keys if not index.catalog.titled(k)]
    if orphaned:
        index.catalog.forget_names(orphaned)
        scanned.difference_update(orphaned)
