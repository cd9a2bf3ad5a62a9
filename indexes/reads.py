"""What an index answers: typed reads over its three stores, the only way in from outside `indexes/`.

`IndexReads` returns the project's types (`ReasoningUnit`, `Passage`, `DocumentRecord`, and the
graph's `Entity`, `Step`, `Link`), so callers know no collection name, metadata key, SQL or
networkx. It reads the stores only through the Protocols of `resin.indexes.base`, so it serves any
implementation of them; `resin.indexes.index.Index` is the one over SQLite, Chroma and the JSON graph.
Entities are named by their key (`units.entity_key`), the form the catalog and graph match on.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Generic, Literal, TypeVar

import numpy as np

from resin.indexes.base import (
    CatalogStore,
    Direction,
    DocumentRecord,
    Entity,
    GraphStore,
    Hit,
    LexicalSearch,
    Link,
    Step,
    VectorIndex,
)
from resin.indexes.catalog_rows import extraction_cache_key
from resin.indexes.documents import Passage
from resin.indexes.embeddings import Embedder, embed
from resin.indexes.lexical import BM25
from resin.indexes.units import ReasoningUnit, UnitKind

_QUERY_CACHE_SIZE = 4096
_PASSAGE_CACHE_SIZE = 8192
_SENTENCE_CACHE_SIZE = 32768
# A unit record is read 5000 at a time: Chroma's limit on one request's ids.
_READ_BATCH = 5000
# An entity with at most this many units (or passages naming it) is ranked exactly: a lookup plus
# a dot product. A commoner one is looked for among the query's this-many nearest neighbours.
ABOUT_SCAN = 256
# Counting passages costs milliseconds; a build elsewhere shows up in BM25 within this many seconds.
_BM25_CHECK_SECONDS = 5.0

Scored = tuple[str, float]
K = TypeVar("K")
V = TypeVar("V")


class LruCache(Generic[K, V]):
    """A thread-safe LRU map: the least recently read entry goes first beyond `size`."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def through(self, keys: Sequence[K], load: Callable[[list[K]], dict[K, V]]) -> dict[K, V]:
        """The values of `keys`: cached ones, the rest from `load` (which may not find some)."""
        with self._lock:
            found = {k: self._items[k] for k in keys if k in self._items}
            for key in found:
                self._items.move_to_end(key)
        missing = [k for k in dict.fromkeys(keys) if k not in found]
        if missing:
            fresh = load(missing)
            found.update(fresh)
            self.put(fresh)
        return found

    def put(self, items: dict[K, V]) -> None:
        """Hold these entries, dropping the least recently read beyond the size."""
        with self._lock:
            self._items.update(items)
            while len(self._items) > self.size:
                self._items.popitem(last=False)


class IndexReads:
    """The typed read interface of an index, over a catalog, a graph and a vector store."""

    def __init__(
        self,
        catalog: CatalogStore,
        graph: GraphStore,
        vectors: VectorIndex,
        embedder: Embedder,
        lexical: LexicalSearch | None = None,
    ) -> None:
        """`lexical` ranks passages by BM25 where the store can (PostgreSQL); else it is built here."""
        self.catalog = catalog
        self.graph = graph
        self.vectors = vectors
        self.embedder = embedder
        self._query_vectors = LruCache[str, np.ndarray](_QUERY_CACHE_SIZE)
        # Passage ids derive from content, so a cached vector never goes stale.
        self._passage_vectors = LruCache[str, np.ndarray](_PASSAGE_CACHE_SIZE)
        # Sentence ids hold their passage's content id: the same holds for them.
        self._sentence_vectors = LruCache[str, np.ndarray](_SENTENCE_CACHE_SIZE)
        # (passage count, when it was last checked, BM25 over the passages)
        self._bm25: tuple[int, float, BM25] | None = None
        self._bm25_lock = threading.Lock()
        self.lexical = lexical

    # embedding ------------------------------------------------------------------------------
    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed with the index's embedder."""
        return embed(self.embedder, texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed short texts (queries, names) through an LRU cache: a question's hops reuse them."""
        found = self._query_vectors.through(
            texts, lambda missing: dict(zip(missing, self.embed(missing), strict=True))
        )
        return np.stack([found[t] for t in texts])

    def query_vector(self, query: str) -> np.ndarray:
        """One query's embedding, through the same cache: a hop's searches embed it once."""
        vector: np.ndarray = self.embed_queries([query])[0]
        return vector

    def sentence_similarity(self, query: str, passages: Sequence[Passage]) -> dict[str, float]:
        """Each sentence's cosine with the query, by sentence id: which sentence asks it.

        The hop reader weighs it. Sentences are embedded when first read, not at build time,
        and kept in an LRU cache: a hop reads few, and a question's hops many of the same.
        """
        sentences = {s.id: s.text for p in passages for s in p.sentences}
        if not sentences:
            return {}
        found = self._sentence_vectors.through(
            list(sentences),
            lambda missing: dict(
                zip(missing, self.embed([sentences[i] for i in missing]), strict=True)
            ),
        )
        vector = self.query_vector(query)
        return {i: float(found[i] @ vector) for i in sentences}

    # units ----------------------------------------------------------------------------------
    def units(self, unit_ids: Sequence[str]) -> list[ReasoningUnit]:
        """The stored units among `unit_ids`, in no order (only those the catalog records)."""
        found = []
        for start in range(0, len(unit_ids), _READ_BATCH):
            chunk = unit_ids[start : start + _READ_BATCH]
            known = self.catalog.known_units(chunk)
            found += [_unit(h) for h in self.vectors.get("units", [u for u in chunk if u in known])]
        return found

    def search_units(
        self,
        query: str,
        k: int,
        kinds: Sequence[UnitKind] | None = None,
        about: str | None = None,
    ) -> list[tuple[ReasoningUnit, float]]:
        """The `k` units nearest the query, best first, with their cosine similarity.

        `kinds` keeps only units of those kinds; `about` (an entity key) only units whose subject
        it is, found by the catalog's subject index rather than a filtered vector search.
        """
        vector = self.query_vector(query)
        if about is None:
            where = {"kind": {"$in": list(kinds)}} if kinds else None
            hits = self.vectors.search("units", vector, k, where)
            # Chroma is written before the catalog: a batch cut short leaves units no row names
            known = self.catalog.known_units([h.id for h in hits])
            return [(_unit(h), h.score) for h in hits if h.id in known]
        kinds = tuple(kinds or ())
        ids = self.catalog.units_with_subject(about, ABOUT_SCAN + 1, kinds)
        if len(ids) > ABOUT_SCAN:  # a common subject: its units among the query's neighbours
            near = self.vectors.nearest("units", vector, ABOUT_SCAN)
            own = self.catalog.with_subject(about, [u for u, _ in near], kinds)
            found = [(u, s) for u, s in near if u in own][:k]
            if found:
                return self._read_units(found)
            ids = ids[:ABOUT_SCAN]  # none that near: rank the first ones found
        stored, vectors = self.vectors.get_vectors("units", ids)
        if not stored:
            return []
        scores = vectors @ vector
        order = np.argsort(-scores, kind="stable")[:k]
        return self._read_units([(stored[i], float(scores[i])) for i in order])

    def _read_units(self, scored: Sequence[Scored]) -> list[tuple[ReasoningUnit, float]]:
        """Ranked unit ids read in full, only now: a unit's record is most of its storage."""
        held = {u.id: u for u in self.units([u for u, _ in scored])}
        return [(held[u], s) for u, s in scored if u in held]

    # passages and documents -----------------------------------------------------------------
    def passages(self, pids: Iterable[str]) -> list[Passage]:
        """Passages by id, in the order asked (unknown ids are skipped)."""
        return self.catalog.passages(pids)

    def search_passages(
        self, query: str, k: int, mode: Literal["dense", "lexical"] = "dense"
    ) -> list[Scored]:
        """Ids and scores of the `k` passages best for the query: by embedding, or by BM25."""
        if mode == "dense":
            return self.vectors.nearest("passages", self.query_vector(query), k)
        return (self.lexical or self._lexical()).search(query, k)

    def _lexical(self) -> BM25:
        """BM25 over the passages, rebuilt only when their count changes."""
        with self._bm25_lock:
            now = time.monotonic()
            if self._bm25 is not None and now - self._bm25[1] < _BM25_CHECK_SECONDS:
                return self._bm25[2]
            count = self.vectors.count("passages")
            if self._bm25 is None or self._bm25[0] != count:
                bm25 = BM25((p.id, f"{p.title} {p.text}") for p in self.catalog.iter_passages())
            else:
                bm25 = self._bm25[2]
            self._bm25 = (count, now, bm25)
            return bm25

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

    def passages_titled(self, key: str, qualified: bool = False) -> list[str]:
        """Passage ids of the documents an entity names as their title, in reading order.

        `qualified`: the titles that add a qualifier instead ("X 1945 film" for "X"), as a name
        in a question rarely carries the disambiguating words of its page's title.
        """
        return self.catalog.titled_qualified(key) if qualified else self.catalog.titled(key)

    def documents(self) -> list[DocumentRecord]:
        """Every indexed document's record, by id."""
        return self.catalog.documents()

    def document(self, doc_id: str) -> DocumentRecord | None:
        """One document's record, or None."""
        return self.catalog.document(doc_id)

    def document_passages(self, doc_id: str) -> list[str]:
        """A document's passage ids in reading order."""
        return self.catalog.doc_passage_ids(doc_id)

    def document_units(self, doc_id: str) -> list[str]:
        """A document's unit ids."""
        return self.catalog.unit_ids(doc_id)

    def extraction_tokens(self, extractor: str, passages: Sequence[Passage]) -> tuple[int, int]:
        """Prompt and completion tokens `extractor` spent on these passages, each content once."""
        keys = [extraction_cache_key(extractor, p.hash) for p in passages]
        return self.catalog.extraction_tokens(keys)

    # entities and mentions ------------------------------------------------------------------
    def entity(self, entity_id: str) -> Entity:
        """The graph's entity of this id."""
        return Entity(entity_id, tuple(self.graph.names(entity_id)))

    def entity_named(self, name: str) -> Entity | None:
        """The graph's entity holding this exact (normalized) name, if any."""
        return self.entities_named([name]).get(name)

    def entities_named(self, names: Sequence[str]) -> dict[str, Entity]:
        """Name → the graph's entity holding it, for those of `names` an entity holds.

        One read for every name: a question's word runs are looked up together.
        """
        return {name: self.entity(node) for name, node in self.graph.nodes_of(names).items()}

    def search_entities(self, query: str, k: int) -> list[tuple[Entity, float]]:
        """The graph's entities whose names are among the `k` nearest the query, best first."""
        hits = self.vectors.search("entities", self.query_vector(query), k)
        found = self.entities_named([hit.metadata.get("key", "") for hit in hits])
        return [
            (found[key], hit.score) for hit in hits if (key := hit.metadata.get("key", "")) in found
        ]

    def entity_vectors(self, entity_ids: Sequence[str]) -> tuple[list[str], np.ndarray]:
        """The entities among these that have a name vector, and those vectors (one row each)."""
        return self.graph.node_vectors(entity_ids)

    def mentions(self, key: str, limit: int = -1) -> list[str]:
        """Ids of the passages that mention an entity (at most `limit`; -1: all)."""
        return self.catalog.mentioning(key, limit)

    def mentioned_in(self, pid: str) -> list[str]:
        """Keys of the entities a passage mentions."""
        return self.catalog.mentioned_in(pid)

    # graph steps ----------------------------------------------------------------------------
    def heaviest_steps(self, entity_id: str, direction: Direction, n: int) -> list[Step]:
        """An entity's `n` heaviest neighbours, as the steps to them; out-edges first on ties.

        The list is shared (a traversal asks for a hub's steps again and again): read it only.
        """
        return self.graph.heaviest_steps(entity_id, direction, n)

    def steps_within(
        self, starts: Sequence[str], direction: Direction, n: int, depth: int
    ) -> dict[str, list[Step]]:
        """`heaviest_steps` of every entity fewer than `depth` steps from `starts`, by entity.

        A walk's edges read at once (one query in PostgreSQL) rather than one node at a time.
        """
        return self.graph.steps_within(starts, direction, n, depth)

    def link(self, head: str, tail: str) -> Link:
        """The edge head → tail, with the units that support it."""
        return _link(head, tail, self.graph.edge(head, tail))

    def links(self) -> Iterator[Link]:
        """Every edge, in the graph's order."""
        return (_link(h, t, attrs) for h, t, attrs in self.graph.edges())

    def link_count(self) -> int:
        """How many edges the graph holds."""
        return self.graph.edge_count()

    def causes_like(self, query: str, tau: float, n: int) -> list[str]:
        """Up to `n` entities heading a causal edge whose names are within cosine `tau` of the query."""
        return self.graph.causes_like(self.query_vector(query), tau, n)

    def near_causes(self, entity_id: str, tau: float, n: int) -> list[str]:
        """Up to `n` other entities heading a causal edge whose names are within `tau` of its own.

        One state is often written two ways ("copper in the river", "the level of copper in the
        river"); the merge threshold keeps such names apart, so a chain crosses them here.
        """
        return self.graph.near_causes(entity_id, tau, n)


def _unit(hit: Hit) -> ReasoningUnit:
    """A unit from its vector record: its whole record is the metadata's `unit`."""
    return ReasoningUnit.model_validate_json(hit.metadata["unit"])


def _link(head: str, tail: str, attrs: dict[str, Any]) -> Link:
    return Link(
        head=head,
        tail=tail,
        relations=tuple(attrs["relations"]),
        unit_ids=tuple(attrs["provenance"]),
        weight=int(attrs["weight"]),
        causal=bool(attrs.get("causal")),
    )
