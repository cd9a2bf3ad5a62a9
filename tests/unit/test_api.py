"""The public API: `resin`'s names, the `Resin` facade and the LangChain retriever."""

from __future__ import annotations

import shutil

import pytest
from langchain_core.retrievers import BaseRetriever

import resin
from resin import Context, Resin, ResinRetriever
from resin.indexes.documents import DocumentError
from resin.indexes.reading import text_document

from ..conftest import SAMPLE_DOCS

QUESTION = "In which port was the designer of the Orrin Dam born?"


def test_every_public_name_imports_and_others_do_not():
    for name in resin.__all__:
        assert getattr(resin, name) is not None, name
    assert resin.graph.name == "resin"
    with pytest.raises(AttributeError, match="no attribute 'Builder'"):
        resin.Builder  # noqa: B018


def test_context_takes_the_index_path_and_the_facade_keeps_other_fields(tmp_path):
    rag = Resin(tmp_path / "idx", k_per_hop=3)
    assert rag.context.index_path == str(tmp_path / "idx")
    assert rag.context.k_per_hop == 3
    kept = Resin(context=Context(index_path="elsewhere", top_chains=2))
    assert (kept.context.index_path, kept.context.top_chains) == ("elsewhere", 2)


def test_a_text_is_titled_by_its_heading_else_its_opening_words():
    titled = text_document("# Orrin Dam\nThe Orrin Dam was designed by Hessa Varn.")
    assert (titled.title, titled.text) == ("Orrin Dam", "The Orrin Dam was designed by Hessa Varn.")
    plain = text_document("Hessa Varn was born in the port of Caldmere in the north of the valley.")
    assert plain.title == "Hessa Varn was born in the port of …"
    assert plain.id == text_document(plain.text).id  # the same text is the same document
    with pytest.raises(DocumentError, match="nothing to index"):
        text_document("# Only a heading\n")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The sample corpus indexed through the facade: eleven files and three strings."""
    docs = tmp_path_factory.mktemp("docs")
    for path in SAMPLE_DOCS.glob("*.md"):
        if path.stem not in ("orrin-dam", "hessa-varn", "caldmere"):
            shutil.copy(path, docs / path.name)
    texts = [
        (SAMPLE_DOCS / f"{name}.md").read_text(encoding="utf-8")
        for name in ("orrin-dam", "hessa-varn", "caldmere")
    ]
    rag = Resin(tmp_path_factory.mktemp("rag") / "index")
    report = rag.index([docs], texts=texts)
    return rag, report


def test_the_facade_indexes_files_and_texts_then_answers_with_sources(built):
    rag, report = built
    assert report.documents_indexed == 14 and report.units > 0
    assert rag.stats()["documents"] == 14
    out = rag.ask(QUESTION)
    assert out["answer"] in ("Caldmere", "port of Caldmere")
    assert {"Orrin Dam", "Hessa Varn"} <= {s["title"] for s in out["sources"]}
    assert [h.id for h in out["plan"]] == sorted(out["results"])
    again = rag.index(texts=[(SAMPLE_DOCS / "orrin-dam.md").read_text(encoding="utf-8")])
    assert (again.documents_indexed, again.documents_skipped) == (0, 1)


def test_the_retriever_returns_the_passages_the_hops_read_in_buffer_order(built):
    rag, _ = built
    retriever = rag.as_retriever()
    assert isinstance(retriever, BaseRetriever) and isinstance(retriever, ResinRetriever)
    docs = retriever.invoke(QUESTION)
    titles = [d.metadata["title"] for d in docs]
    assert titles[:2] == ["Orrin Dam", "Hessa Varn"], titles  # each hop's answer passage first
    first = docs[0]
    assert first.id == first.metadata["passage_id"]
    assert first.metadata["hop"] == 1 and first.metadata["route"] == "answer"
    assert first.metadata["sentence_ids"] and all(
        s.startswith(first.metadata["passage_id"]) for s in first.metadata["sentence_ids"]
    )
    assert "designed by Hessa Varn" in first.page_content
    assert len({d.id for d in docs}) == len(docs)
    assert [d.id for d in rag.as_retriever(k=1).invoke(QUESTION)] == [first.id]


def test_the_tools_and_deletion_go_through_the_same_index(built, tmp_path):
    rag, _ = built
    names = [t.name for t in rag.tools()]
    assert names == ["find_units", "find_chains", "find_passages", "read_passages"]
    hits = rag.tools()[2].invoke({"query": "Brannock Mill flour"})
    assert hits and hits[0]["title"] == "Brannock Mill"
    scratch = Resin(tmp_path / "scratch")
    scratch.index(texts=["# Lone Page\nThe Lone Page names nothing else."])
    doc_id = text_document("# Lone Page\nThe Lone Page names nothing else.").id
    assert scratch.delete(doc_id) and not scratch.delete(doc_id)
    assert scratch.stats()["documents"] == 0


def test_a_bad_file_is_refused_before_anything_is_written(tmp_path):
    (tmp_path / "good.md").write_text("# Good\nThe good page is fine.", encoding="utf-8")
    (tmp_path / "empty.txt").write_text("", encoding="utf-8")
    (tmp_path / "picture.png").write_bytes(b"\x89PNG")
    rag = Resin(tmp_path / "index")
    with pytest.warns(UserWarning, match="picture.png"):
        with pytest.raises(DocumentError, match="empty.txt: file is empty"):
            rag.index([tmp_path])
    assert not (tmp_path / "index").exists()
    with pytest.warns(UserWarning, match="not indexed: .*empty.txt"):
        report = rag.index([tmp_path], strict=False)
    assert report.documents_indexed == 1
    with pytest.raises(DocumentError, match="nothing to index"):
        Resin(tmp_path / "other").index([])
