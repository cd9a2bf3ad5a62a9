"""Path problems are one `error:` line, never a traceback, and a failing build leaves nothing."""

import pytest

from resin.cli import main

from ..conftest import SAMPLE_DOCS

DOC = str(SAMPLE_DOCS / "caldmere.md")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_an_index_path_that_is_a_file_is_named_and_left_alone(tmp_path, capsys):
    target = tmp_path / "notes.txt"
    target.write_text("mine")
    code, _, err = run(capsys, "index", DOC, "--index", str(target), "--extract", "none")
    assert code == 2 and err.strip().endswith(
        f"index path {target} is a file: give --index (RESIN_INDEX) a folder"
    )
    assert target.read_text() == "mine"
    code, _, err = run(capsys, "ask", "Where is Caldmere?", "--index", str(target))
    assert code == 2 and "is a file" in err and "Traceback" not in err


def test_an_index_folder_that_cannot_be_made_is_one_line(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    target = tmp_path / "file" / "index"
    code, _, err = run(capsys, "index", DOC, "--index", str(target), "--extract", "none")
    assert code == 2
    assert err.splitlines()[-1].startswith(f"error: index folder {target} cannot be created: ")


def test_indexing_a_missing_path_creates_no_index(tmp_path, capsys):
    target = tmp_path / "idx"
    code, _, err = run(capsys, "index", str(tmp_path / "missing"), "--index", str(target))
    assert code == 2 and "error: nothing to index in" in err
    assert not target.exists()


@pytest.mark.parametrize("name", ["missing-dir/chains.png", "missing-dir/chains.mmd"])
def test_a_chains_file_in_a_missing_folder_is_refused_before_answering(
    sample_index, tmp_path, capsys, name
):
    path = tmp_path / name
    code, out, err = run(
        capsys, "ask", "Where is Caldmere?", "--index", str(sample_index), "--chains", str(path)
    )
    assert code == 2 and out == ""
    assert err.strip() == f"error: --chains {path}: folder {path.parent} does not exist"
