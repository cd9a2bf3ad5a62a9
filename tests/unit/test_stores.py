"""Each index finds its own Chroma collections; an index that is not there is never made by a reader."""


import pytest

from resin.agent.context import Context
from resin.agent.graph import graph
from resin.indexes.build import Builder
from resin.indexes.index_config import IndexNotFoundError
from resin.indexes.opening import close_indexes
from resin.indexes.stores import COLLECTIONS, StoreMissingError, collection_names

from ..conftest import DOCS, make_legacy


def test_collections_carry_the_index_s_own_prefix_from_its_manifest(open_index):
    index = open_index()
    Builder(index, None).run(DOCS)
    prefix = index.manifest["collection_prefix"]
    assert prefix.startswith("resin-") and index.manifest["index_id"] in prefix
    assert collection_names(index.vectors.client) == {prefix + n for n in COLLECTIONS}
    assert index.vectors.count("passages") == 3


def test_an_older_embedded_index_is_migrated_on_open_with_nothing_lost(tmp_path, open_index):
    index = open_index(tmp_path / "old")
    Builder(index, None).run(DOCS)
    make_legacy(index)
    reopened = open_index(tmp_path / "old")
    prefix = reopened.manifest["collection_prefix"]
    assert "migrating" not in reopened.manifest
    assert collection_names(reopened.vectors.client) == {prefix + n for n in COLLECTIONS}
    assert reopened.vectors.count("passages") == 3
    hits = reopened.vectors.search("passages", reopened.embed(["who designed the dam"])[0], 1)
    assert hits[0].metadata["doc_id"] == "orrin"


def test_an_index_whose_collections_are_gone_is_refused_naming_the_store(tmp_path, open_index):
    index = open_index(tmp_path / "ix")
    Builder(index, None).run(DOCS)
    index.vectors.client.delete_collection(index.manifest["collection_prefix"] + "passages")
    index.close()
    with pytest.raises(StoreMissingError, match=r"Chroma store .*chroma has no collection resin-"):
        open_index(tmp_path / "ix")


def test_a_reader_refuses_a_folder_without_an_index_and_creates_nothing(tmp_path, open_index):
    with pytest.raises(IndexNotFoundError, match=f"no resin index at {tmp_path / 'typo'}"):
        open_index(tmp_path / "typo", create=False)
    assert not (tmp_path / "typo").exists()


def test_the_graph_refuses_a_mistyped_index_path_naming_where_it_looked(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    close_indexes()
    ctx = Context.one_model("fake", index_path="typo")
    with pytest.raises(IndexNotFoundError) as failure:
        graph.invoke({"question": "Who designed the Orrin Dam?"}, context=ctx)
    assert f"no resin index at {tmp_path / 'typo'} ('typo' taken from {tmp_path})" in str(
        failure.value
    )
    assert not (tmp_path / "typo").exists()


@pytest.mark.parametrize("command", [["ask", "Who designed it?"], ["stats"], ["chat"]])
def test_cli_readers_name_the_missing_index_and_make_no_folder(
    tmp_path, monkeypatch, capsys, command
):
    from resin.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", open("/dev/null"))  # noqa: SIM115 - chat reads a line
    assert main([*command, "--index", "typo"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: no resin index at {tmp_path / 'typo'} ('typo' taken from")
    assert len(err.splitlines()) == 1
    assert not (tmp_path / "typo").exists()
