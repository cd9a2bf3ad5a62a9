"""The index's read interface: typed objects from every method, one opener, one path resolution."""

import shutil
import typing

import pytest

from resin.indexes.base import (
    CatalogStore,
    DocumentRecord,
    Entity,
    GraphStore,
    Link,
    Step,
    VectorIndex,
)
from resin.indexes.catalog import Catalog
from resin.indexes.documents import Passage
from resin.indexes.graph import EntityGraph
from resin.indexes.index_config import IndexNotFoundError
from resin.indexes.opening import close_indexes, open_index
from resin.indexes.stores import ChromaIndex
from resin.indexes.units import ReasoningUnit, entity_key


@pytest.fixture
def index(sample_index, embedder):
    opened = open_index(sample_index, embedder)
    yield opened
    opened.close()


def test_units_and_their_searches_are_typed_and_filtered(index):
    found = index.search_units("Who designed the Orrin Dam?", 5)
    assert found and all(isinstance(u, ReasoningUnit) and isinstance(s, float) for u, s in found)
    assert [s for _, s in found] == sorted((s for _, s in found), reverse=True)
    ids = [u.id for u, _ in found]
    assert {u.id for u in index.units([*ids, "u-none"])} == set(ids)
    relations = index.search_units("Who designed the Orrin Dam?", 5, kinds=["relation"])
    assert relations and all(u.kind == "relation" for u, _ in relations)
    about = index.search_units("Where was she born?", 5, about="hessa varn")
    assert about and all(entity_key(u.subject) == "hessa varn" for u, _ in about)
    kinds = {u.kind for u, _ in about}
    one_kind = index.search_units("Where was she born?", 5, kinds=[min(kinds)], about="hessa varn")
    assert one_kind and {u.kind for u, _ in one_kind} == {min(kinds)}
    assert index.search_units("anything", 5, about="no such entity") == []


def test_passages_documents_and_mentions_are_typed(index):
    dense = index.search_passages("Where was Hessa Varn born?", 3)
    lexical = index.search_passages("Where was Hessa Varn born?", 3, "lexical")
    for ranked in (dense, lexical):
        assert ranked and all(isinstance(p, str) and isinstance(s, float) for p, s in ranked)
    pids = [p for p, _ in dense]
    passages = index.passages([*reversed(pids), "p-none"])
    assert [p.id for p in passages] == pids[::-1] and all(isinstance(p, Passage) for p in passages)
    ids, vectors = index.passage_vectors(pids)
    assert ids == pids and vectors.shape[0] == len(pids)
    records = index.documents()
    assert records and all(isinstance(r, DocumentRecord) for r in records)
    assert index.document(records[0].doc_id) == records[0] and index.document("none") is None
    own = index.document_passages("hessa-varn")
    assert own == index.passages_titled("hessa varn") and index.document_units("hessa-varn")
    assert index.passages_titled("hessa", qualified=True) == own  # "Hessa Varn" for "Hessa"
    named = index.mentions("orrin dam")
    assert named and all("orrin dam" in index.mentioned_in(p) for p in named)
    assert index.mentions("orrin dam", 1) == named[:1]


def test_entities_and_graph_steps_are_typed_with_their_provenance(index):
    dam = index.entity_named("the Orrin Dam")
    assert isinstance(dam, Entity) and dam.name == "Orrin Dam" and index.entity(dam.id) == dam
    assert index.entity_named("no such entity") is None
    near = index.search_entities("Orrin Dam", 3)
    assert near and isinstance(near[0][0], Entity) and near[0][0].id == dam.id
    steps = index.heaviest_steps(dam.id, "bidirectional", 8)
    assert steps and all(isinstance(s, Step) and dam.id in (s.head, s.tail) for s in steps)
    link = index.link(steps[0].head, steps[0].tail)
    assert isinstance(link, Link) and link.unit_ids and link.weight == len(link.unit_ids)
    assert {u.id for u in index.units(list(link.unit_ids))} == set(link.unit_ids)
    links = list(index.links())
    assert len(links) == index.link_count() and link in links
    held, vectors = index.entity_vectors([dam.id])
    assert held == [dam.id] and vectors.shape[0] == 1


def test_each_store_implements_its_protocol():
    for protocol, store in (
        (CatalogStore, Catalog),
        (GraphStore, EntityGraph),
        (VectorIndex, ChromaIndex),
    ):
        methods = [n for n, v in vars(protocol).items() if callable(v) and not n.startswith("_")]
        assert methods and all(callable(getattr(store, n, None)) for n in methods), protocol
    assert "unreadable" in typing.get_type_hints(GraphStore)


def test_one_opener_resolves_a_relative_path_from_the_working_directory_and_shares_it(
    sample_index, embedder, tmp_path, monkeypatch
):
    monkeypatch.chdir(sample_index.parent)
    relative = open_index(sample_index.name, embedder)
    try:
        assert relative.config.path == sample_index
        assert open_index(sample_index, embedder) is relative
    finally:
        relative.close()
    again = open_index(sample_index, embedder)
    assert again is not relative
    close_indexes()
    assert open_index(sample_index, embedder) is not again
    close_indexes()
    monkeypatch.chdir(tmp_path)
    with pytest.raises(IndexNotFoundError, match=f"'{sample_index.name}' taken from {tmp_path}"):
        open_index(sample_index.name, embedder)


def test_chat_keeps_its_threads_beside_the_index_its_relative_path_names(
    sample_index, tmp_path, monkeypatch
):
    from resin.cli import main

    shutil.copytree(sample_index, tmp_path / "idx")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", open("/dev/null"))  # noqa: SIM115 - chat reads a line
    try:
        assert main(["chat", "--index", "idx"]) == 0
    finally:
        close_indexes()
    assert (tmp_path / "idx" / "chat.sqlite").exists()
