"""Test doubles, kept out of agent/, tools/ and indexes/: scripted chat models, an in-memory index.

`ScriptedChatModel` replies from a list or a function of the prompt and records every call;
`ToolCallingModel` also asks for a tool call, as an injected passage would; `scripted` answers
each step of the graph by its schema. `heuristic_reply` (`rule_based`) is the rule-based model
behind the ``fake`` spec, which exists only where it is registered: tests/conftest.py for the
tests, `evals.scripted` for benchmarks and `resin eval --model fake`. Tests register their own
scripts under a spec name with `agent.llm.registered_chat_model` (or `register_chat_model`).
`FakeIndex` serves the index's typed read interface from memory (`MemoryVectors`, `DictCatalog`,
an unsaved `EntityGraph`, hashed vectors): the planner, hops and compose run on it in milliseconds.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, cast

import numpy as np
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.messages.ai import UsageMetadata
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict

from agent.llm.base import CallFigures, TextChatModel
from evals.hash_embedder import HashEmbedder
from indexes.base import CatalogStore, DocumentRecord, Hit
from indexes.documents import Document, Passage, content_hash, make_passages
from indexes.graph import EntityGraph
from indexes.index import IndexConfig
from indexes.reads import IndexReads
from indexes.store_writes import store_passage_vectors, store_units
from indexes.units import ReasoningUnit, entity_key, normalize

Responder = Callable[[list[BaseMessage], dict[str, Any]], str]


class ScriptedChatModel(TextChatModel):
    """A deterministic chat model for tests: replies come from a list or a function of the prompt.

    Every call is recorded in ``calls`` (messages and bound kwargs), so tests can assert on
    prompts; `record` off keeps none, for a model that answers a whole benchmark run.
    """

    # Plain defaults (pydantic copies them per instance), not default_factory: LangChain reprs
    # the model on every call, and a factory makes pydantic inspect its signature (~1.5 ms).
    responses: list[str] = []
    responder: Responder | None = None
    calls: list[tuple[list[BaseMessage], dict[str, Any]]] = []
    record: bool = True
    model_config = ConfigDict(arbitrary_types_allowed=True)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def model_id(self) -> str:
        """Scripted models share one cache identity."""
        return "fake"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:
        """Tools are called by the graph's own logic, so binding them changes nothing."""
        return self

    def _reply(self, messages: list[BaseMessage], kwargs: dict[str, Any]) -> str:
        if self.record:
            self.calls.append((list(messages), dict(kwargs)))
        if self.responses:
            return self.responses.pop(0)
        if self.responder is None:
            raise RuntimeError("ScriptedChatModel ran out of responses")
        return self.responder(messages, kwargs)

    @staticmethod
    def _usage(messages: list[BaseMessage], text: str) -> UsageMetadata:
        prompt = sum(len(str(m.content).split()) for m in messages)
        completion = len(text.split())
        return {
            "input_tokens": prompt,
            "output_tokens": completion,
            "total_tokens": prompt + completion,
        }

    def _complete(
        self, messages: list[BaseMessage], stop: list[str] | None, **kwargs: Any
    ) -> tuple[str, CallFigures]:
        text = self._reply(messages, kwargs)
        return text, CallFigures(self._usage(messages, text))

    def _pieces(
        self, messages: list[BaseMessage], stop: list[str] | None, **kwargs: Any
    ) -> Iterator[str | CallFigures]:
        text = self._reply(messages, kwargs)
        yield from re.findall(r"\S+\s*|\s+", text)
        yield CallFigures(self._usage(messages, text))


class ToolCallingModel(ScriptedChatModel):
    """A scripted model whose every reply also asks for a tool call, as an injected passage demands."""

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        call = {"name": "search_passages", "args": {"query": "secret keys"}, "id": "call_1"}
        message = AIMessage(content=self._reply(messages, kw), tool_calls=[call])
        return ChatResult(generations=[ChatGeneration(message=message)])


_CAPITALIZED = re.compile(r"\b[A-Z][\w'-]*(?:\s+(?:of\s+|the\s+)?[A-Z][\w'-]*)*")


def heuristic_reply(messages: list[BaseMessage], kwargs: dict[str, Any]) -> str:
    """The ``fake`` model: rule-based answers shaped by the schema bound to the call.

    Extraction gets one relation per sentence between its first two capitalized names (or an
    entity-fact), which gives benchmarks a realistic unit and edge count with no model time.
    """
    schema = ((kwargs.get("response_format") or {}).get("json_schema") or {}).get("name")
    prompt = str(messages[-1].content)
    if schema == "ExtractionOutput":
        body = re.search(r"<passage[^>]*>\n(.*)\n</passage>", prompt, re.S)
        from indexes.documents import split_sentences

        units = []
        for sentence in split_sentences(body.group(1) if body else prompt):
            names = [n for n in _CAPITALIZED.findall(sentence) if len(n) > 2]
            if len(names) >= 2 and names[0] != names[1]:
                units.append(
                    {
                        "kind": "relation",
                        "subject": names[0],
                        "predicate": "related to",
                        "object": names[1],
                        "quote": sentence,
                    }
                )
            elif names:
                words = sentence.rstrip(".").split()
                units.append(
                    {
                        "kind": "entity-fact",
                        "subject": names[0],
                        "predicate": "is described as",
                        "object": " ".join(words[-3:]),
                        "quote": sentence,
                    }
                )
        return json.dumps({"units": units})
    if schema == "Referent":  # the first name offered: the previous answer, when it agrees
        enum = kwargs["response_format"]["json_schema"]["schema"]["properties"]["name"]["enum"]
        return json.dumps({"name": enum[0]})
    if schema == "ShortAnswer":  # the first choice (the best-ranked candidate), or a name
        body = kwargs["response_format"]["json_schema"]["schema"]["properties"]["answer"]
        names = _CAPITALIZED.findall(prompt.rpartition("<question>")[0])
        return json.dumps({"answer": (body.get("enum") or names or ["not found"])[0]})
    if schema:
        return "{}"
    # Free text: the first sentence of the first passage, cited; or of the prompt's text.
    passage = re.search(r"<passage[^>]*>([^<]*)</passage>", prompt)
    source = passage.group(1) if passage else prompt
    first = re.search(r"[A-Z][^.\n]{10,200}\.", source)
    if not first:
        return "I could not find the answer."
    return f"{first.group(0)} [1]" if passage else first.group(0)


def rule_based(record: bool = True) -> ScriptedChatModel:
    """The ``fake`` model: `heuristic_reply` for every call."""
    return ScriptedChatModel(responder=heuristic_reply, record=record)


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

    def put_document(self, record: DocumentRecord, passages: list[Passage]) -> None:
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
        self.catalog.put_document(record, passages)
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
