"""`resin index --check` finds where the catalog, Chroma and the graph disagree; `--repair` mends it.

Each test corrupts a copy of a clean parser-unit index of the sample corpus by hand, through the
stores' own interfaces, and compares the repaired copy with the clean index: the same units,
vectors, edges, mentions and answers.
"""

import json
import shutil

import pytest

from resin.agent.context import Context
from resin.agent.graph import graph
from resin.agent.llm import register_chat_model
from resin.cli import main
from resin.evals.crash import compare, snapshot
from resin.indexes.build import Builder
from resin.indexes.integrity import check_index
from resin.indexes.maintenance import corrupt
from resin.indexes.opening import close_indexes
from resin.indexes.reading import load_documents

from ..conftest import SAMPLE_DOCS
from ..fakes import scripted


@pytest.fixture(scope="module")
def clean(tmp_path_factory, embedder, nlp_extractor):
    """A clean index of a copy of the sample corpus (its sources stay where they were read)."""
    from resin.indexes.opening import open_index

    root = tmp_path_factory.mktemp("integrity")
    shutil.copytree(SAMPLE_DOCS, root / "docs")
    index = open_index(root / "clean", embedder, create=True)
    Builder(index, None, nlp=nlp_extractor).run(load_documents([root / "docs"])[0])
    index.close()
    yield root
    close_indexes()


def copy_of(clean, tmp_path, open_index):
    shutil.copytree(clean / "clean", tmp_path / "copy")
    return open_index(tmp_path / "copy", create=False)


def cli(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def everything(index) -> dict:
    """What a build leaves behind, node by node and edge by edge, and the stats."""
    figures = snapshot(index)
    figures["nodes"] = sorted(
        (n, sorted(a["units"]), a["names"]) for n, a in index.graph.g.nodes(data=True)
    )
    figures["edge_relations"] = sorted(
        (h, t, a["relations"], a.get("causal", False)) for h, t, a in index.graph.edges()
    )
    figures["names"] = sorted(index.vectors.ids("entities"))
    figures["documents"] = index.catalog.documents()
    stats = index.stats()
    figures["stats"] = {k: stats[k] for k in ("documents", "passages", "units", "units_by_kind")}
    return figures


def answers(path) -> list[tuple[str, list[str]]]:
    """The sample questions' answers and cited sentences over the index at `path`."""
    register_chat_model("scripted-integrity", scripted())
    ctx = Context.one_model("scripted-integrity", index_path=str(path), answer_mode="ranked")
    questions = [
        json.loads(line)["question"]
        for line in (SAMPLE_DOCS.parent / "questions.jsonl").read_text().splitlines()
        if line.strip()
    ]
    try:
        outs = [graph.invoke({"question": q}, context=ctx) for q in questions]
    finally:
        close_indexes()
    return [(o["answer"], [s["sentence"] for s in o["sources"]]) for o in outs]


def test_check_names_each_disagreement_and_repair_restores_a_clean_build(
    clean, tmp_path, open_index, capsys
):
    path = tmp_path / "copy"
    index = copy_of(clean, tmp_path, open_index)
    broken = corrupt(index)
    found = check_index(index).disagreements
    index.close()

    for kind, items in broken.items():  # the graph also names what held the unit whose row went
        assert set(items) <= set(found[kind]) if kind.startswith("graph_") else found[kind] == items
    assert set(found) == {*broken, "graph_nodes_without_unit"}
    code, out, _ = cli(capsys, "index", "--check", "--index", str(path))
    assert code == 1
    lost = ", ".join(broken["units_without_vector"])
    assert f"disagrees: 3 catalog units with no vector in Chroma ({lost})" in out
    lost = broken["passages_without_vector"][0]
    assert f"disagrees: 1 catalog passages with no vector in Chroma ({lost})" in out
    assert "disagrees: 1 graph edges that no catalog unit supports" in out
    assert out.rstrip().endswith(f"`resin index --repair --index {path}` makes them agree again")

    code, out, err = cli(capsys, "index", "--repair", "--index", str(path))
    assert code == 0, err
    assert "1 passages embedded again" in out and "4 unit vectors restored" in out
    assert "1 unit catalog rows restored" in out and "1 graph edges no unit supports mended" in out
    code, out, _ = cli(capsys, "index", "--check", "--index", str(path))
    assert code == 0 and f"index {path} is consistent" in out

    repaired = open_index(path, create=False)
    reference = open_index(clean / "clean", create=False)
    assert compare(snapshot(reference), snapshot(repaired)) == {
        "lost": 0,
        "duplicated": 0,
        "extra": 0,
        "mismatched_stores": 0,
    }
    assert everything(repaired) == everything(reference)
    repaired.close()
    reference.close()
    assert answers(path) == answers(clean / "clean")


def test_lost_catalog_rows_come_back_from_the_sources(clean, tmp_path, open_index, capsys):
    path = tmp_path / "copy"
    index = copy_of(clean, tmp_path, open_index)
    index.catalog.delete_passages(index.catalog.doc_passage_ids("tessel-river"))
    with index.catalog.transaction() as db:  # a document's record lost, its passages kept
        db.execute("DELETE FROM documents WHERE doc_id='salt-ledger-road'")
    found = check_index(index).disagreements
    index.close()
    assert found["documents_without_passages"] == ["tessel-river"]
    assert found["passages_without_document"] == index.catalog.doc_passage_ids("salt-ledger-road")
    assert found["units_without_passage"]  # tessel-river's units

    # the repair reads tessel-river again from its source and drops what no document owns; the
    # files given are then indexed as usual, which brings salt-ledger-road back
    code, out, err = cli(
        capsys, "index", str(clean / "docs"), "--repair", "--index", str(path), "--extract", "nlp"
    )
    assert code == 0, err
    assert "1 documents read again from their sources" in out
    assert f"index {path} is consistent" in out
    assert "1 documents indexed, 13 unchanged" in out
    repaired = open_index(path, create=False)
    reference = open_index(clean / "clean", create=False)
    assert not any(compare(snapshot(reference), snapshot(repaired)).values())
    assert everything(repaired) == everything(reference)
    repaired.close()
    reference.close()
    assert answers(path) == answers(clean / "clean")


def test_what_cannot_be_restored_is_named_and_nothing_else_is_lost(
    tmp_path, open_index, nlp_extractor, capsys
):
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("caldmere.md", "lindmoor.md"):
        shutil.copy(SAMPLE_DOCS / name, docs / name)
    index = open_index(tmp_path / "idx")
    Builder(index, None, nlp=nlp_extractor).run(load_documents([docs])[0])
    kept = sorted(index.catalog.unit_ids("lindmoor"))
    index.catalog.delete_passages(index.catalog.doc_passage_ids("caldmere"))
    index.close()
    (docs / "caldmere.md").unlink()
    code, out, err = cli(capsys, "index", "--repair", "--index", str(tmp_path / "idx"))
    assert code == 1
    assert (
        f"error: document caldmere lost passages from the catalog and its source "
        f"{docs / 'caldmere.md'} is gone or changed: index the file again (or --delete it)"
    ) in err
    assert "disagrees: 1 documents whose passages are missing from the catalog (caldmere)" in out
    index = open_index(tmp_path / "idx", create=False)
    assert sorted(index.catalog.unit_ids("lindmoor")) == kept
    assert not index.catalog.document("caldmere").complete  # shown as incomplete in stats
    index.close()
    # deleting it leaves a consistent index
    assert cli(capsys, "index", "--delete", "caldmere", "--index", str(tmp_path / "idx"))[0] == 0
    assert cli(capsys, "index", "--check", "--index", str(tmp_path / "idx"))[0] == 0


def test_a_graph_file_that_cannot_be_read_is_rebuilt_from_the_catalog(
    clean, tmp_path, open_index, capsys
):
    path = tmp_path / "copy"
    shutil.copytree(clean / "clean", path)
    (path / "graph.json").write_text('{"directed": true, "nodes": [', encoding="utf-8")  # cut
    code, _, err = cli(capsys, "stats", "--index", str(path))
    assert code == 2 and err.startswith(f"error: graph {path / 'graph.json'} cannot be read (")
    assert err.rstrip().endswith(
        f"`resin index --repair --index {path}` rebuilds it from the catalog"
    )
    code, out, _ = cli(capsys, "index", "--check", "--index", str(path))
    assert code == 1 and "disagrees: 1 graph files that cannot be read (graph " in out
    assert "catalog units the graph does not hold" in out
    code, out, err = cli(capsys, "index", "--repair", "--index", str(path))
    assert code == 0, err
    assert "1 graph files rebuilt from the catalog's units" in out
    assert f"index {path} is consistent" in out
    repaired = open_index(path, create=False)
    reference = open_index(clean / "clean", create=False)
    assert everything(repaired) == everything(reference)
    repaired.close()
    reference.close()


def test_check_takes_no_files_and_needs_an_index(tmp_path, capsys):
    code, _, err = cli(capsys, "index", "docs", "--check", "--index", str(tmp_path / "i"))
    assert code == 2 and err.startswith("error: --check only reads the index")
    for flag in ("--check", "--repair"):
        code, _, err = cli(capsys, "index", flag, "--index", str(tmp_path / "none"))
        assert code == 2 and err.startswith(f"error: no resin index at {tmp_path / 'none'}")
        assert not (tmp_path / "none").exists()
