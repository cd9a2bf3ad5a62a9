"""A document's units are its own: a copy of the same text under another id shares none of them."""

import json
import shutil

from resin.indexes.build import Builder
from resin.indexes.reading import load_documents
from resin.tools.retrieval import units_by_id

from ..conftest import SAMPLE_DOCS


def unit_rows(index, doc_id):
    """The document's units as stored in Chroma: id, passage, sentences."""
    units = units_by_id(index, index.catalog.unit_ids(doc_id))
    return sorted((u.id, u.passage_id, tuple(u.sentence_ids)) for u in units)


def test_a_copy_indexed_as_new_then_deleted_leaves_the_original_intact(
    open_index, nlp_extractor, tmp_path
):
    root = tmp_path / "corpus"
    shutil.copytree(SAMPLE_DOCS, root / "docs")
    index = open_index()
    builder = Builder(index, None, nlp=nlp_extractor)
    builder.run(load_documents([root / "docs"])[0])
    before = unit_rows(index, "caldmere")
    vectors = index.vectors.count("units")
    assert before
    # the same files again, one folder level up, as copies (--as-new): other ids, the
    # extraction cache's units reused
    builder = Builder(index, None, nlp=nlp_extractor, as_new=True)
    report = builder.run(load_documents([root])[0])
    assert report.parse_cache_hits > 0
    copy = unit_rows(index, "docs/caldmere")
    assert copy and not {u for u, _, _ in copy} & {u for u, _, _ in before}
    assert all(s.startswith(f"{p}:") for _, p, sentences in copy for s in sentences)
    assert index.vectors.count("units") == 2 * vectors
    assert builder.delete("docs/caldmere")
    assert unit_rows(index, "caldmere") == before
    kept = {u for u, _, _ in before}
    assert kept <= set(index.vectors.vectors("units")[0])


def test_the_same_files_from_one_folder_up_are_skipped_and_named(tmp_path, capsys):
    from resin.cli import main

    root = tmp_path / "corpus"
    shutil.copytree(SAMPLE_DOCS, root / "docs")
    index = str(tmp_path / "idx")
    assert main(["index", str(root / "docs"), "--index", index]) == 0
    capsys.readouterr()
    assert main(["index", str(root), "--index", index]) == 0
    out = capsys.readouterr().out
    assert out.startswith("0 documents indexed, 0 unchanged")
    assert "skipped 14 documents already indexed under another id: docs/" in out
    assert "docs/caldmere as caldmere" in out and "(--as-new indexes them again" in out
    assert main(["stats", "--index", index, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["documents"] == 14
    # an edited copy is new content: it is indexed under its own id
    edited = root / "docs" / "caldmere.md"
    edited.write_text(edited.read_text() + "\nCaldmere has a lighthouse.\n")
    assert main(["index", str(root), "--index", index]) == 0
    assert "1 documents indexed" in capsys.readouterr().out
