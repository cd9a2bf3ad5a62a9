"""The three stores behind an index, as interfaces, and the graph's own read types.

`Index` reads and writes only through these, so another backend (PostgreSQL for the catalog and
the graph, say) is a class that implements them; today's are `stores.ChromaIndex`,
`catalog.Catalog` (SQLite) and `graph.EntityGraph` (networkx, saved as JSON). Nothing outside
`indexes/` sees a store: it reads through `Index`'s methods, which return `Entity`, `Step` and
`Link` from the graph, `ReasoningUnit` and `Passage` from the others.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple, Protocol

import numpy as np

from resin.indexes.documents import Passage
from resin.indexes.units import ReasoningUnit

Vector = Sequence[float] | np.ndarray
Vectors = Sequence[Sequence[float]] | np.ndarray
Way = Literal["forward", "backward"]
# "forward" (out-edges), "backward" (in-edges) or "bidirectional" (both)
Direction = Literal["forward", "backward", "bidirectional"]


@dataclass(frozen=True)
class Hit:
    """One vector-store record: id, cosine similarity, stored text and metadata."""

    id: str
    score: float
    text: str
    metadata: dict[str, Any]


@dataclass(frozen=True)
class DocumentRecord:
    """What the catalog remembers of an indexed document."""

    doc_id: str
    hash: str
    title: str
    source: str
    extract_key: str
    complete: bool
    content: str = ""  # what `Document.content` was ("" in catalogs from before it was kept)


@dataclass(frozen=True)
class Entity:
    """A graph node: a cluster of names for one entity, the first its display name."""

    id: str
    names: tuple[str, ...]

    @property
    def name(self) -> str:
        """The name the entity is shown by."""
        return self.names[0]


class Step(NamedTuple):
    """One edge taken from an entity: `way` says whether it leaves it (forward) or enters it."""

    head: str
    tail: str
    way: Way


@dataclass(frozen=True)
class Link:
    """An edge head → tail with its provenance: the units that support it, one weight each."""

    head: str
    tail: str
    relations: tuple[str, ...]
    unit_ids: tuple[str, ...]
    weight: int
    causal: bool


class VectorIndex(Protocol):
    """Vectors, texts and metadata of units, passages and entity names, by collection."""

    def upsert(
        self,
        collection: str,
        ids: Sequence[str],
        vectors: Vectors,
        texts: Sequence[str],
        metadatas: Sequence[dict[str, Any]],
    ) -> None:
        """Insert or replace records."""

    def delete(self, collection: str, ids: Sequence[str]) -> None:
        """Remove records by id (unknown ids are ignored)."""

    def search(
        self, collection: str, vector: Vector, k: int, where: dict[str, Any] | None = None
    ) -> list[Hit]:
        """The k nearest records, best first."""

    def nearest(self, collection: str, vector: Vector, k: int) -> list[tuple[str, float]]:
        """Ids and cosine similarities of the k nearest records, best first; no record is read."""

    def get(self, collection: str, ids: Sequence[str]) -> list[Hit]:
        """Records by id (score 1.0), in no particular order."""

    def vectors(self, collection: str) -> tuple[list[str], list[list[float]]]:
        """Every id and vector of a collection."""

    def ids(self, collection: str) -> list[str]:
        """Every id of a collection (nothing else is read)."""

    def get_vectors(self, collection: str, ids: Sequence[str]) -> tuple[list[str], np.ndarray]:
        """The ids found among those given, and their vectors (one row each)."""

    def count(self, collection: str) -> int:
        """Number of records in a collection."""


class LexicalSearch(Protocol):
    """Passages ranked by BM25 for a query."""

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        """The `k` best (passage id, score) pairs, best first."""


class CatalogStore(Protocol):
    """The build's bookkeeping: documents, passages, unit rows, mentions, scans, extraction cache.

    Each write is atomic on its own: a kill leaves every call done or not done.
    """

    def close(self) -> None:
        """Release the store's connections."""

    def is_empty(self) -> bool:
        """Whether no document was ever recorded."""

    def batch(self) -> AbstractContextManager[None]:
        """One build batch's writes, committed together where the store can (PostgreSQL)."""

    def counts(self) -> dict[str, object]:
        """Figures for `resin stats`."""

    # documents
    def document(self, doc_id: str) -> DocumentRecord | None:
        """The record of one document, or None."""

    def documents(self) -> list[DocumentRecord]:
        """Every document record, by id."""

    def records(self, doc_ids: Sequence[str]) -> dict[str, DocumentRecord]:
        """The records of those of `doc_ids` that are indexed, by id (one read for all)."""

    def owners(self, contents: Sequence[str]) -> dict[str, str]:
        """Content hash → the first id (by id) indexed with it, for those of `contents` indexed."""

    def put_documents(self, documents: Sequence[tuple[DocumentRecord, list[Passage]]]) -> None:
        """Record documents and their passages (replacing earlier versions), in one write."""

    def mark_complete(self, flags: Iterable[tuple[str, bool]]) -> None:
        """Record, per (document id, flag), whether every passage was extracted."""

    def delete_document(self, doc_id: str) -> None:
        """Forget a document, its passages, units and mentions."""

    # passages
    def passages(self, pids: Iterable[str]) -> list[Passage]:
        """Passages by id, in the order asked (unknown ids are skipped)."""

    def doc_passage_ids(self, doc_id: str) -> list[str]:
        """Ids of a document's passages in reading order."""

    def passage_rows(self) -> list[tuple[str, str, int]]:
        """(passage id, document id, position) of every passage."""

    def delete_passages(self, pids: Sequence[str]) -> None:
        """Forget passages and their mentions."""

    def iter_passages(self, batch: int = 2000) -> Iterator[Passage]:
        """Every passage, by document and position."""

    def titled(self, title_key: str) -> list[str]:
        """Passages of the documents whose title, as an entity key, is `title_key`."""

    def titled_qualified(self, title_key: str) -> list[str]:
        """Passages of documents titled `title_key` plus a qualifier ("X 1945 film" for "X")."""

    # units
    def put_units(self, doc_id: str, units: Iterable[tuple[str, str, str, str]]) -> None:
        """Record (unit id, passage id, kind, subject's entity key) for a document's units."""

    def units_with_subject(
        self, subject_key: str, limit: int = -1, kinds: Sequence[str] = ()
    ) -> list[str]:
        """Ids of the units about this entity key, of these kinds (all: none given); -1: no limit."""

    def with_subject(
        self, subject_key: str, uids: Sequence[str], kinds: Sequence[str] = ()
    ) -> set[str]:
        """Those of `uids` about this entity key, of these kinds (all: none given)."""

    def known_units(self, uids: Sequence[str]) -> set[str]:
        """Those of `uids` the catalog records: readers skip vectors of a batch cut short."""

    def units_without_subject(self) -> list[str]:
        """Ids of units recorded before the catalog kept subjects."""

    def set_unit_subjects(self, pairs: Iterable[tuple[str, str]]) -> None:
        """Record (unit id, subject's entity key) pairs."""

    def unit_ids(self, doc_id: str) -> list[str]:
        """Ids of a document's units."""

    def unit_rows(self) -> list[tuple[str, str, str]]:
        """(unit id, passage id, document id) of every unit, in the order recorded."""

    def delete_unit_rows(self, uids: Sequence[str]) -> None:
        """Forget units by id."""

    def delete_units(self, doc_id: str) -> None:
        """Forget a document's units."""

    # mentions and the name scans
    def add_mentions(self, pairs: Iterable[tuple[str, str]]) -> None:
        """Record (normalized name, passage id) pairs."""

    def mention_pairs(self) -> list[tuple[str, str]]:
        """Every (normalized name, passage id) pair."""

    def stray_mentions(self) -> list[str]:
        """The passages that mentions name but the catalog does not hold."""

    def drop_stray_mentions(self) -> None:
        """Forget the mentions of passages the catalog does not hold."""

    def mentioning(self, name_key: str, limit: int = -1) -> list[str]:
        """Passages whose text mentions the normalized name (-1: no limit)."""

    def mentioned_in(self, pid: str) -> list[str]:
        """Normalized names mentioned in a passage."""

    def scanned_names(self) -> set[str]:
        """Every name that all passages have been scanned for."""

    def mark_scanned(self, names: Iterable[str]) -> None:
        """Remember that every passage has been scanned for these names."""

    def add_unscanned(self, names: Iterable[str]) -> None:
        """Names to scan every passage for at the end of a build."""

    def unscanned_names(self) -> set[str]:
        """Names waiting for their scan."""

    def forget_names(self, names: Iterable[str]) -> None:
        """Drop the mentions and scans of names that no longer exist."""

    # extraction cache
    def cached_extraction(self, key: str) -> tuple[str, int, int, int] | None:
        """(units json, proposed, ungrounded, invalid) for a cache key, or None."""

    def cache_extraction(
        self,
        key: str,
        pid: str,
        units_json: str,
        counts: tuple[int, int, int],
        tokens: tuple[int, int],
    ) -> None:
        """Store one passage's extraction result under its cache key."""

    def extraction_tokens(self, keys: Sequence[str]) -> tuple[int, int]:
        """Prompt and completion tokens the cached extractions under `keys` cost, each key once."""


class GraphStore(Protocol):
    """Entity clusters and the cause → effect edges between them, with unit provenance.

    Nodes are ids; `names` gives a node's names. Writes show at once to this process's reads
    and are durable after `save`.
    """

    # The database generation held, which every save advances (0 where there is none).
    generation: int

    # Why the stored graph could not be read (opened for a check or repair), else None.
    unreadable: str | None

    # reads
    def node_of(self, name: str) -> str | None:
        """The node holding this exact (normalized) name, if any."""

    def nodes_of(self, names: Sequence[str]) -> dict[str, str]:
        """Name → node for those of `names` a node holds (one read for all of them)."""

    def names(self, node: str) -> list[str]:
        """Every name (the first is the display name) of a node."""

    def all_names(self) -> dict[str, str]:
        """Entity key → node id for every name."""

    def heaviest_steps(self, node: str, direction: Direction, n: int) -> list[Step]:
        """The `n` heaviest edges at `node`, out-edges first on ties (a shared list: read only)."""

    def steps_within(
        self, starts: Sequence[str], direction: Direction, n: int, depth: int
    ) -> dict[str, list[Step]]:
        """`heaviest_steps` of every node fewer than `depth` steps from `starts`, by node."""

    def edge(self, head: str, tail: str) -> dict[str, Any]:
        """The edge's relations, provenance (unit ids), weight, and causal flag if set."""

    def edges(self) -> Iterator[tuple[str, str, dict[str, Any]]]:
        """Every edge as (head, tail, attributes)."""

    def edge_count(self) -> int:
        """How many edges the graph holds."""

    def node_count(self) -> int:
        """How many nodes the graph holds."""

    def stats(self) -> dict[str, Any]:
        """Node and edge counts."""

    def node_vectors(self, nodes: Sequence[str]) -> tuple[list[str], np.ndarray]:
        """Nodes that have a name vector, and those vectors (one row each)."""

    def causes_like(self, vector: np.ndarray, tau: float, n: int) -> list[str]:
        """Up to `n` nodes heading a causal edge whose names are within cosine `tau` of `vector`."""

    def near_causes(self, node: str, tau: float, n: int) -> list[str]:
        """Up to `n` other nodes heading a causal edge whose names are within `tau` of `node`'s."""

    # writes
    def load_vectors(self, keys: Sequence[str], vectors: Vectors) -> None:
        """Give the graph the name vectors it clusters against (keyed by entity key)."""

    def name_vectors(self) -> tuple[list[str], np.ndarray]:
        """The entity keys that have a vector, and those vectors (one row each)."""

    def unknown_keys(self, names: Iterable[str]) -> list[str]:
        """Entity keys among `names` that no node holds yet."""

    def add_units(
        self, units: Iterable[ReasoningUnit], vectors: dict[str, Sequence[float]]
    ) -> None:
        """Attach units to their nodes and add their edges; idempotent per unit id."""

    def remove_units(self, unit_ids: Iterable[str]) -> list[str]:
        """Drop these units' support; returns the keys of the nodes removed as orphans."""

    def add_edge(self, head: str, tail: str, relation: str, unit_id: str) -> None:
        """An edge no unit added (an integrity check's corruption), supported by `unit_id`."""

    def unsupported(
        self, units: Mapping[str, ReasoningUnit], unknown: Collection[str] = ()
    ) -> tuple[list[tuple[str, str]], list[str]]:
        """The edges and nodes holding a unit id that no unit of `units` puts there."""

    def missing(self, units: Mapping[str, ReasoningUnit]) -> list[ReasoningUnit]:
        """The units the graph does not hold everywhere `add_units` puts them."""

    def prune(self, units: Mapping[str, ReasoningUnit]) -> list[str]:
        """Drop every unit id from where no unit of `units` puts it; returns removed keys."""

    def save(self) -> None:
        """Make the graph durable."""
