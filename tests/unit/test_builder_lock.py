"""One builder at a time per index: the second waits, or with --no-wait names the first and exits 1."""

import subprocess
import sys
import time

import pytest

from resin.cli import main
from resin.evals.checks.builders import held_by_a_thread
from resin.indexes.build import Builder
from resin.indexes.documents import Document
from resin.indexes.locks import LOCK_NAME, IndexBusyError

from ..conftest import SAMPLE_DOCS

DOC = Document(id="orrin", title="Orrin Dam", text="The Orrin Dam was designed by Hessa Varn.")

HOLD = """
import sys, time
from pathlib import Path
from resin.indexes.locks import builder_lock
with builder_lock(Path(sys.argv[1])):
    print("held", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def hold(folder, seconds: float) -> subprocess.Popen:
    """Another process holding the index's build lock for `seconds`."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(folder), str(seconds)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def test_a_second_builder_with_no_wait_names_the_holder_and_exits_1(open_index, tmp_path, capsys):
    index = open_index(tmp_path / "idx")
    index.close()
    build = ["index", str(SAMPLE_DOCS), "--index", str(tmp_path / "idx"), "--no-wait"]
    build += ["--extract", "none"]
    holder = hold(tmp_path / "idx", 30)
    try:
        code = main(build)
        err = capsys.readouterr().err
        assert code == 1
        assert f"being built by another builder (pid {holder.pid}, started " in err
        assert err.count("error:") == 1 and "Traceback" not in err
    finally:
        holder.kill()
        holder.wait()
    # the holder was killed: the OS dropped its lock, and a build goes through
    assert main(build) == 0


def test_a_waiting_builder_runs_once_the_first_is_done(open_index, tmp_path):
    index = open_index(tmp_path / "idx")
    told: list[str] = []
    holder = hold(tmp_path / "idx", 1.5)
    started = time.monotonic()
    report = Builder(index, None, on_wait=told.append).run([DOC])
    holder.wait()
    assert report.documents_indexed == 1 and time.monotonic() - started >= 1.0
    assert len(told) == 1 and f"pid {holder.pid}" in told[0]
    # a builder that will not wait, while another thread of this process holds the lock
    with held_by_a_thread(index.config.path):
        with pytest.raises(IndexBusyError, match="being built by another builder"):
            Builder(index, None, wait=False).delete("orrin")
    assert (index.config.path / LOCK_NAME).exists() and Builder(index, None).delete("orrin")
