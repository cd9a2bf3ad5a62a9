"""Test doubles for resin's own tests: a graph-step script and an in-memory index.

The scripted chat models themselves are in `resin.testing.chat` (`resin doctor` and `resin eval`
use them too); `scripted` here answers each step of the graph by its schema. The ``fake`` spec is
registered for every test by tests/conftest.py. `FakeIndex` serves the index's typed read
interface from memory (`MemoryVectors`, `DictCatalog`, an unsaved `EntityGraph`, hashed
vectors): the planner, hops and compose run on it in milliseconds.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, cast

import numpy as np
from langchain_core.messages import BaseMessage

from resin.evals.hash_embedder import HashEmbedder
from resin.indexes.base import CatalogStore, DocumentRecord, Hit
from resin.indexes.documents import Document, Passage, content_hash, make_passages
from resin.indexes.graph import EntityGraph
from resin.indexes.index_config import IndexConfig
from resin.indexes.reads import IndexReads
from resin.indexes.store_writes import store_passage_vectors, store_units
from resin.indexes.units import ReasoningUnit, entity_key, normalize
from resin.testing.chat import ScriptedChatModel


def scripted(
    plan: Any = None, bridge: str | None = None, answer: str = "Caldmere"
) -> ScriptedChatModel:
    """One model for every step of the graph: its reply depends on the schema bound to the call."""

    def respond(messages: list[BaseMessage], kwargs: dict[str, Any]) -> str:
        schema = ((kwargs.get("response_format") or {}).get("json_schema") or {}).get("name")
        if schema == "Plan":
            return plan if isinstance(plan, str) else json.dumps(plan or {"hops": []})
        if schema == "BridgeAnswer":
            return json.dumps({"answer": bridge or ""})
        assert schema == "ShortAnswer", kwargs
        return json.dumps({"answer": answer})

    return ScriptedChatModel(responder=respond)


class MemoryVectors:
    """`VectorIndex` in dicts: exact cosine search over the records a test stores."""

    def __init__(self) -> None:
        self._records: dict[str, dict[str, tuple[np.ndarray, str, dict[str, Any]]]] = {}

    def _collection(self, name: str) -> dict[str, tuple[np.ndarray, str, dict[str, Any]]]:
        return self._records.setdefault(name, {})

    def upsert(self, collection, ids, vectors, texts, metadatas) -> None:
        for i, text, vector, meta in zip(ids, texts, np.asarray(vectors), metadatas, strict=True):
            self._collection(collection)[i] = (np.asarray(vector, dtype=np.float32), text, meta)

    def delete(self, collection, ids) -> None:
        for i in ids:
            self._collection(collection).pop(i, None)

    def _scored(self, collection, vector, where=None) -> list[tuple[str, float]]:
        kinds = (where or {}).get("kind", {}).get("$in")
        scored = [
            (i, float(v @ np.asarray(vector)))
            for i, (v, _, meta) in self._collection(collection).items()
            if kinds is None or meta.get("kind") in kinds
        ]
        return sorted(scored, key=lambda item: (-item[1], item[0]))

    def search(self, collection, vector, k, where=None) -> list[Hit]:
        held = self._collection(collection)
        return [
            Hit(i, s, held[i][1], held[i][2])
            for i, s in self._scored(collection, vector, where)[:k]
        ]

    def nearest(self, collection, vector, k) -> list[tuple[str, float]]:
        return self._scored(collection, vector)[:k]

    def get(self, collection, ids) -> list[Hit]:
        held = self._collection(collection)
        return [Hit(i, 1.0, held[i][1], held[i][2]) for i in ids if i in held]

    def vectors(self, collection) -> tuple[list[str], list[list[float]]]:
        held = self._collection(collection)
        return list(held), [v.tolist() for v, _, _ in held.values()]

    def ids(self, collection) -> list[str]:
        return list(self._collection(collection))

    def get_vectors(self, collection, ids) -> tuple[list[str], np.ndarray]:
        held = self._collection(collection)
        found = [i for i in ids if i in held]
        if not found:  # no rows: a (0, 0) matrix, as stacking nothing gives
            return [], np.zeros((0, 0), dtype=np.float32)
        return found, np.array([held[i][0] for i in found], dtype=np.float32)

    def count(self, collection) -> int:
        return len(self._collection(collection))


class DictCatalog:
    """The catalog's reads and the writes that fill them, in dicts (one document per add)."""

    def __init__(self) -> None:
        self.records: dict[str, DocumentRecord] = {}
        self.held: dict[str, Passage] = {}
        self.unit_rows: dict[str, tuple[str, str, str, str]] = {}  # uid → pid, doc, kind, subject
        self.mention_rows: set[tuple[str, str]] = set()
        self.unscanned: set[str] = set()

    def put_documents(self, documents: list[tuple[DocumentRecord, list[Passage]]]) -> None:
        for record, passages in documents:
            self.records[record.doc_id] = record
            self.held.update({p.id: p for p in passages})

    def put_units(self, doc_id: str, units) -> None:
        for uid, pid, kind, subject in units:
            self.unit_rows[uid] = (pid, doc_id, kind, subject)

    def add_mentions(self, pairs) -> None:
        self.mention_rows.update(pairs)

    def add_unscanned(self, names) -> None:
        self.unscanned.update(names)

    def titled(self, title_key: str) -> list[str]:
        return [p.id for p in self.held.values() if entity_key(p.title) == title_key]

    def titled_qualified(self, title_key: str) -> list[str]:
        return [p.id for p in self.held.values() if entity_key(p.title).startswith(f"{title_key} ")]

    def passages(self, pids) -> list[Passage]:
        return [self.held[p] for p in pids if p in self.held]

    def iter_passages(self, batch: int = 2000) -> Iterator[Passage]:
        return iter(list(self.held.values()))

    def documents(self) -> list[DocumentRecord]:
        return sorted(self.records.values(), key=lambda r: r.doc_id)

    def document(self, doc_id: str) -> DocumentRecord | None:
        return self.records.get(doc_id)

    def doc_passage_ids(self, doc_id: str) -> list[str]:
        return [p.id for p in self.held.values() if p.doc_id == doc_id]

    def unit_ids(self, doc_id: str) -> list[str]:
        return [u for u, row in self.unit_rows.items() if row[1] == doc_id]

    def units_with_subject(self, subject_key: str, limit: int = -1, kinds=()) -> list[str]:
        found = [
            u
            for u, (_, _, kind, subject) in self.unit_rows.items()
            if subject == subject_key and (not kinds or kind in kinds)
        ]
        return found if limit < 0 else found[:limit]

    def with_subject(self, subject_key: str, uids, kinds=()) -> set[str]:
        return set(uids) & set(self.units_with_subject(subject_key, -1, kinds))

    def known_units(self, uids) -> set[str]:
        return set(uids) & self.unit_rows.keys()

    def mentioning(self, name_key: str, limit: int = -1) -> list[str]:
        found = sorted(p for n, p in self.mention_rows if n == name_key)
        return found if limit < 0 else found[:limit]

    def mentioned_in(self, pid: str) -> list[str]:
        return sorted(n for n, p in self.mention_rows if p == pid)

    def counts(self) -> dict[str, object]:
        return {
            "documents": len(self.records),
            "passages": len(self.held),
            "units": len(self.unit_rows),
        }


class FakeIndex(IndexReads):
    """An in-memory index behind the same typed read interface: hash vectors, a dict catalog and
    the networkx entity graph (never saved), filled through the build's own store writes.

    `add(title, text, units)` indexes one document and the units a test writes for its first
    passage (their `passage_id`, `doc_id` and `sentence_ids` are filled in from it).
    """

    def __init__(self) -> None:
        graph = EntityGraph(Path(f"/nonexistent/resin-fake-{id(self)}/graph.json"))
        graph.save = lambda: None  # type: ignore[method-assign]  # in memory only
        self.memory = DictCatalog()
        # the catalog's reads, and the writes that fill them: what the agent and `add` call
        super().__init__(cast(CatalogStore, self.memory), graph, MemoryVectors(), HashEmbedder())
        self.config = IndexConfig(path=Path("fake-index"))

    def add(self, title: str, text: str, units: Sequence[ReasoningUnit] = ()) -> list[Passage]:
        doc = Document(id=entity_key(title).replace(" ", "-"), title=title, text=text)
        passages = make_passages(doc)
        first = passages[0]
        placed = [
            u.model_copy(
                update={
                    "passage_id": first.id,
                    "doc_id": doc.id,
                    "sentence_ids": u.sentence_ids
                    or [s.id for s in first.sentences if normalize(u.subject) in normalize(s.text)][
                        :1
                    ]
                    or [first.sentences[0].id],
                }
            )
            for u in units
        ]
        record = DocumentRecord(doc.id, content_hash(text), title, "test", "test", True)
        self.catalog.put_documents([(record, passages)])
        store_passage_vectors(self, passages)  # type: ignore[arg-type]
        store_units(self, placed, set())  # type: ignore[arg-type]
        self.catalog.put_units(
            doc.id, [(u.id, u.passage_id, u.kind, entity_key(u.subject)) for u in placed]
        )
        names = set(self.graph.all_names())
        for p in self.memory.held.values():  # every passage that writes a name mentions it
            text_key = f" {normalize(p.text)} "
            self.catalog.add_mentions((n, p.id) for n in names if f" {n} " in text_key)
        return passages
