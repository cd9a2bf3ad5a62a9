import json
import sqlite3
from contextlib import closing

import pytest

from resin.evals.crash import snapshot
from resin.indexes.build import Builder
from resin.indexes.documents import Document
from resin.indexes.index_config import IndexMismatchError
from resin.indexes.reading import load_documents
from resin.indexes.units import entity_key
from resin.testing.chat import ScriptedChatModel, heuristic_reply

from ..conftest import DOCS, SAMPLE_DOCS


def test_build_stores_units_graph_and_mentions(open_index, fake_model):
    index = open_index()
    report = Builder(index, fake_model).run(DOCS)
    assert report.documents_indexed == 3 and report.model_calls == 3 and not report.errors
    snap = snapshot(index)
    assert len(snap["units"]) == report.units == len(snap["chroma_units"]) > 0
    assert len(snap["chroma_passages"]) == 3
    # relation units became SARG edges with unit provenance
    dam, varn = index.graph.node_of("Orrin Dam"), index.graph.node_of("Hessa Varn")
    edge = index.graph.edge(dam, varn)  # KeyError: no such edge
    assert edge["weight"] == len(edge["provenance"])
    # mentions cross documents: the mill passage names the Orrin Reservoir, the dam passage too
    reservoir = index.catalog.mentioning(entity_key("Orrin Reservoir"))
    assert {p.doc_id for p in index.catalog.passages(reservoir)} == {"orrin", "mill"}
    # titles are linked to every passage that names them, not only their own document
    assert {p.doc_id for p in index.catalog.passages(index.catalog.mentioning("hessa varn"))} == {
        "orrin",
        "varn",
    }
    assert index.catalog.titled("hessa varn") == index.catalog.doc_passage_ids("varn")
    stats = index.stats()
    assert stats["documents"] == 3 and stats["graph_edges"] > 0 and stats["prompt_tokens"] > 0
    unit_hits = index.vectors.search("units", index.embed(["who designed the dam"])[0], 3)
    assert unit_hits and json.loads(unit_hits[0].metadata["unit"])["kind"] in (
        "relation",
        "entity-fact",
    )


def test_second_run_over_unchanged_input_makes_zero_model_calls(open_index, fake_model):
    index = open_index()
    Builder(index, fake_model).run(DOCS)
    before = snapshot(index)
    calls = len(fake_model.calls)
    report = Builder(open_index(), fake_model).run(DOCS)
    assert len(fake_model.calls) == calls and report.model_calls == 0
    assert report.documents_skipped == 3 and report.documents_indexed == 0
    assert snapshot(index) == before


def test_changed_document_replaces_old_units_from_cache_elsewhere(open_index, fake_model):
    index = open_index()
    Builder(index, fake_model).run(DOCS)
    changed = [
        DOCS[0],
        Document(id="varn", title="Hessa Varn", text="Hessa Varn was born in Port Alder."),
        DOCS[2],
    ]
    calls = len(fake_model.calls)
    report = Builder(index, fake_model).run(changed)
    assert report.documents_indexed == 1 and len(fake_model.calls) == calls + 1
    assert index.graph.node_of("Lindmoor") is None  # its only unit came from the old text
    assert index.graph.node_of("Port Alder") is not None
    rerun = Builder(open_index(), fake_model).run(DOCS)  # back to the first version: all cached
    assert rerun.model_calls == 0 and rerun.cache_hits == 1 and rerun.documents_indexed == 1


def test_delete_removes_passages_units_emptied_edges_and_orphans(open_index, fake_model):
    index = open_index()
    Builder(index, fake_model).run(DOCS)
    varn_units = set(index.catalog.unit_ids("varn"))
    assert Builder(index, fake_model).delete("varn")
    assert index.catalog.document("varn") is None
    assert varn_units.isdisjoint(index.vectors.vectors("units")[0])
    assert len(index.vectors.vectors("passages")[0]) == 2
    assert index.graph.node_of("Lindmoor") is None  # orphan node gone
    for _, _, data in index.graph.edges():
        assert varn_units.isdisjoint(data["provenance"]) and data["provenance"]
    assert not Builder(index, fake_model).delete("varn")
    # the graph on disk agrees
    reopened = open_index()
    assert reopened.graph.edge_count() == index.graph.edge_count()
    # deleting all documents leaves an empty graph
    for doc in ("orrin", "mill"):
        Builder(index, fake_model).delete(doc)
    assert index.graph.node_count() == 0 and index.vectors.count("units") == 0


def test_interrupted_build_resumes_with_nothing_lost_or_duplicated(open_index, tmp_path):
    docs, errors = load_documents([SAMPLE_DOCS])
    assert docs and not errors
    reference = open_index(tmp_path / "reference")
    total = Builder(reference, ScriptedChatModel(responder=heuristic_reply)).run(docs).model_calls
    expected = snapshot(reference)

    for crash_at in (1, 5, 9):
        calls = {"n": 0}

        def crashing(messages, kwargs, crash_at=crash_at, calls=calls):
            calls["n"] += 1
            if calls["n"] == crash_at:
                raise KeyboardInterrupt  # a BaseException: nothing in the build may swallow it
            return heuristic_reply(messages, kwargs)

        path = tmp_path / f"crash{crash_at}"
        with pytest.raises(KeyboardInterrupt):
            Builder(
                open_index(
                    path,
                ),
                ScriptedChatModel(responder=crashing),
                batch_passages=4,
            ).run(docs)
        resumed = open_index(path)
        report = Builder(resumed, ScriptedChatModel(responder=heuristic_reply)).run(docs)
        # every call answered before the crash was cached; only the rest are asked again
        assert report.model_calls == total - (crash_at - 1)
        assert snapshot(resumed) == expected


def test_failed_passages_are_reported_and_retried_next_run(open_index):
    index = open_index()
    report = Builder(index, ScriptedChatModel(responder=lambda m, k: "garbage")).run(DOCS[:1])
    assert report.failed_passages and index.catalog.document("orrin").complete is False
    report = Builder(index, ScriptedChatModel(responder=heuristic_reply)).run(DOCS[:1])
    assert report.model_calls == 1 and not report.failed_passages and report.units > 0
    assert index.catalog.document("orrin").complete


def test_structural_index_first_then_units_added_by_a_model(open_index, fake_model):
    index = open_index()
    report = Builder(index, None).run(DOCS)
    assert report.model_calls == 0 and index.vectors.count("passages") == 3
    assert index.vectors.count("units") == 0
    assert set(index.catalog.mentioning("hessa varn")) == set(
        index.catalog.doc_passage_ids("orrin")
    ) | set(index.catalog.doc_passage_ids("varn"))
    report = Builder(index, fake_model).run(DOCS)
    assert report.documents_indexed == 3 and report.model_calls == 3
    assert index.vectors.count("units") == report.units > 0
    assert index.vectors.count("passages") == 3


def test_opening_with_another_embedder_is_a_clear_error(open_index, embedder, tmp_path):
    open_index().close()

    class Other:
        name = "some-other-embedder"

        def embed_documents(self, texts):
            return embedder.embed_documents(texts)

    from resin.indexes.opening import open_index

    with pytest.raises(IndexMismatchError, match="some-other-embedder"):
        open_index(tmp_path / "index", Other(), create=True)


def test_switching_the_extraction_model_replaces_units_everywhere(
    open_index, fake_model, monkeypatch
):
    index = open_index()
    Builder(index, fake_model).run(DOCS)
    first = {uid for uid, _pid, _doc in index.catalog.unit_rows()}

    class Other(ScriptedChatModel):
        @property
        def model_id(self):
            return "other"

    def one_unit(messages, kwargs):
        return json.dumps(
            {
                "units": [
                    {
                        "quote": "Hessa Varn was born in Caldmere.",
                        "kind": "relation",
                        "subject": "Hessa Varn",
                        "predicate": "born in",
                        "object": "Caldmere",
                    }
                ]
            }
        )

    saves = []
    save = index.graph.save

    def counted_save():
        saves.append(1)
        save()

    monkeypatch.setattr(index.graph, "save", counted_save)
    Builder(index, Other(responder=one_unit)).run(DOCS)
    rows = [uid for uid, _pid, _doc in index.catalog.unit_rows()]
    assert len(rows) == 1 and set(rows).isdisjoint(first)
    # One batch: old units leave in one graph pass, not one whole-graph save per document.
    assert len(saves) == 2  # the removal pass and the batch's own save
    assert index.vectors.count("units") == 1 == index.stats()["units"]
    assert index.graph.edge_count() == 1


def test_a_catalog_from_before_unit_subjects_is_filled_from_chroma(
    open_index, fake_model, tmp_path
):
    from resin.tools.entities import units_about

    index = open_index()
    Builder(index, fake_model).run(DOCS)
    expected = {h.unit.id for h in units_about(index, "Hessa Varn", k=50)}
    assert expected
    index.close()
    with closing(sqlite3.connect(index.catalog.path)) as db:  # as an older resin left it
        db.execute("DROP INDEX units_subject")
        db.execute("ALTER TABLE units DROP COLUMN subject")
        db.commit()
    reopened = open_index(tmp_path / "index")
    assert reopened.catalog.units_without_subject() == []
    assert {h.unit.id for h in units_about(reopened, "Hessa Varn", k=50)} == expected
