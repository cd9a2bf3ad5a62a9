"""A deployment's failures against a real PostgreSQL and Chroma: one line, exit 1, secrets masked.

A URL that is not PostgreSQL, a refused connection, a wrong password, a Chroma server down and a
database stopped in the middle of a build each end `resin` in one `error:` line; after a restart
the next question succeeds; a question reuses the pool's connections; an empty folder writes
nothing; `GET /ready` on a real `langgraph dev` server follows the database and Chroma.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import psycopg
import pytest
from langgraph_sdk import get_sync_client

from resin.agent.context import Context
from resin.agent.graph import graph
from resin.cli import main
from resin.evals.crash import synthetic_corpus
from resin.evals.postgres import create_database
from resin.indexes.opening import close_indexes
from resin.testing.processes import free_port, running

from ..conftest import FIRST, SAMPLE_DOCS
from .servers import dev_server, tail

pytestmark = pytest.mark.slow

SECRET = "s3cret-pw"
NLP = ["--extract", "nlp"]


def _with_password(url: str, password: str = SECRET, user: str = "postgres") -> str:
    """`url` logging in as `user` with `password` (the server trusts loopback: any is taken)."""
    return url.replace("postgresql://postgres@", f"postgresql://{user}:{password}@")


def _generation(url: str) -> int:
    with psycopg.connect(url, options="-c search_path=resin") as conn:
        row = conn.execute("SELECT value FROM generation").fetchone()
    return int(row[0]) if row else 0


@contextmanager
def _chroma(path: Path, port: int) -> Iterator[None]:
    chroma = shutil.which("chroma") or str(Path(sys.executable).with_name("chroma"))
    cmd = [chroma, "run", "--path", str(path), "--host", "127.0.0.1", "--port", str(port)]
    with running(cmd, f"http://127.0.0.1:{port}/api/v2/heartbeat"):
        yield


@pytest.fixture(scope="module")
def pg():
    """A PostgreSQL of this module's own, which the tests stop and restart."""
    from resin.evals.postgres import find_bin, postgres_server

    if find_bin() is None:
        pytest.skip("no PostgreSQL binaries")
    with postgres_server() as server:
        yield server
    close_indexes()


@pytest.fixture(scope="module")
def built(pg, chroma_port, tmp_path_factory):
    """The sample indexed into a database of `pg` (password in its URL), vectors on Chroma."""
    url = _with_password(create_database(pg.url, "sample"))
    where = ["--database", url, "--chroma-host", "127.0.0.1", "--chroma-port", str(chroma_port)]
    where += ["--index", str(tmp_path_factory.mktemp("built"))]
    assert main(["index", str(SAMPLE_DOCS), *NLP, *where]) == 0
    close_indexes()
    return {"url": url, "where": where}


def _one_line(capsys, argv: list[str]) -> str:
    capsys.readouterr()
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert SECRET not in err
    return err.strip()


def test_each_database_and_chroma_failure_is_one_masked_line_and_exit_1(
    pg, built, chroma_port, capsys, monkeypatch
):
    chroma = ["--chroma-host", "127.0.0.1", "--chroma-port", str(chroma_port)]
    err = _one_line(capsys, ["stats", "--database", f"mysql://u:{SECRET}@db/x", *chroma])
    assert err == (
        "error: --database (RESIN_DATABASE_URL) 'mysql://u:***@db/x' is no PostgreSQL URL: "
        "give postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE"
    )
    refused = f"postgresql://resin:{SECRET}@127.0.0.1:{free_port()}/resin"
    err = _one_line(capsys, ["stats", "--database", refused, *chroma])
    assert err.startswith(f"error: database {refused.replace(SECRET, '***')}: connection failed")
    assert "Connection refused" in err
    # a role that logs in by password, on a server that trusts everyone else
    with psycopg.connect(pg.url, autocommit=True) as conn:
        hba = Path(conn.execute("SHOW hba_file").fetchone()[0])
        conn.execute("CREATE ROLE reader LOGIN PASSWORD 'the-right-one'")
        hba.write_text(f"host all reader 127.0.0.1/32 scram-sha-256\n{hba.read_text()}")
        conn.execute("SELECT pg_reload_conf()")
    wrong = _with_password(pg.url.rsplit("/", 1)[0] + "/sample", user="reader")
    err = _one_line(capsys, ["stats", "--database", wrong, *chroma])
    assert "password authentication failed for user" in err and ":***@" in err
    # the index is there, its Chroma server is not
    dead = ["--chroma-host", "127.0.0.1", "--chroma-port", str(free_port())]
    err = _one_line(capsys, ["stats", "--database", built["url"], *dead])
    assert err.startswith("error: Chroma server 127.0.0.1:") and "start the server" in err
    # the same from the environment alone
    monkeypatch.setenv("RESIN_DATABASE_URL", refused)
    assert "connection failed" in _one_line(capsys, ["ask", FIRST, "--model", "fake", *chroma])


def test_an_empty_folder_indexed_into_postgresql_writes_nothing(pg, chroma_port, tmp_path, capsys):
    url = create_database(pg.url, "empty")
    empty = tmp_path / "empty"
    empty.mkdir()
    chroma = ["--chroma-host", "127.0.0.1", "--chroma-port", str(chroma_port)]
    capsys.readouterr()
    assert main(["index", str(empty), "--database", url, *chroma]) == 2
    assert capsys.readouterr().err.strip() == f"error: nothing to index in {empty}"
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT to_regclass('resin.manifest')").fetchone() == (None,)


def _counting(monkeypatch) -> list[str]:
    """Count every connection this process opens to PostgreSQL from now on."""
    opened: list[str] = []
    connect = psycopg.Connection.connect.__func__  # type: ignore[attr-defined]

    def counted(cls, conninfo="", **kwargs):
        opened.append(conninfo)
        return connect(cls, conninfo, **kwargs)

    monkeypatch.setattr(psycopg.Connection, "connect", classmethod(counted))
    monkeypatch.setattr(psycopg, "connect", psycopg.Connection.connect)
    return opened


def _context(built: dict, chroma_port: int) -> Context:
    return Context(
        index_path=built["where"][-1],
        database=built["url"],
        chroma_host="127.0.0.1",
        chroma_port=chroma_port,
        hop_model="fake",
        compose_model="fake",
    )


def test_a_question_opens_at_most_two_connections(built, chroma_port, monkeypatch):
    ctx = _context(built, chroma_port)
    assert graph.invoke({"question": FIRST}, context=ctx)["answer"]  # opens the index
    opened = _counting(monkeypatch)
    for _ in range(3):
        before = len(opened)
        assert graph.invoke({"question": FIRST}, context=ctx)["answer"] == "Hessa Varn"
        assert len(opened) - before <= 2, opened[before:]


def test_the_questions_after_a_restart_succeed(pg, built, chroma_port):
    ctx = _context(built, chroma_port)
    assert graph.invoke({"question": FIRST}, context=ctx)["answer"] == "Hessa Varn"
    pg.restart()  # every pooled connection is now dead
    for _ in range(3):
        assert graph.invoke({"question": FIRST}, context=ctx)["answer"] == "Hessa Varn"
    close_indexes()


def test_a_database_stopped_mid_build_is_one_line_and_the_rerun_completes(
    pg, chroma_port, tmp_path
):
    url = _with_password(create_database(pg.url, "midbatch"))
    corpus = synthetic_corpus(tmp_path / "corpus.jsonl", documents=100, seed=3)
    where = ["--database", url, "--chroma-host", "127.0.0.1", "--chroma-port", str(chroma_port)]
    where += ["--index", str(tmp_path / "ix")]
    cmd = [sys.executable, "-m", "resin.cli", "index", str(corpus), *NLP, *where]
    build = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # stop the server once the first batch is committed: the next one is under way
        deadline = time.monotonic() + 300
        while build.poll() is None and time.monotonic() < deadline:
            try:
                if _generation(url) > 0:
                    break
            except psycopg.Error:
                pass  # the schema is not made yet
            time.sleep(0.05)
        assert build.poll() is None, f"the build ended before a batch was seen: {build.stderr}"
        pg.stop()
        out, err = build.communicate(timeout=120)
    finally:
        if build.poll() is None:
            build.kill()
        pg.start()
    # the progress bar's lines (one per redraw), then the error on a line of its own
    lines = [line for line in err.splitlines() if line.strip() and not line.startswith("indexing")]
    assert build.returncode == 1, err
    assert len(lines) == 1 and "Traceback" not in err and SECRET not in err, err
    assert lines[0].startswith(f"error: database {url.replace(SECRET, '***')}: ")
    assert subprocess.run(cmd, capture_output=True, text=True, timeout=600).returncode == 0
    assert main(["index", "--check", *where]) == 0


def test_ready_follows_the_database_and_chroma_through_the_server(pg, tmp_path):
    port = free_port()
    with _chroma(tmp_path / "chroma", port):
        url = _with_password(create_database(pg.url, "ready"))
        where = ["--database", url, "--chroma-host", "127.0.0.1", "--chroma-port", str(port)]
        assert main(["index", str(SAMPLE_DOCS), *NLP, *where, "--index", str(tmp_path)]) == 0
        close_indexes()
    env = {
        "RESIN_DATABASE_URL": url,
        "RESIN_CHROMA_HOST": "127.0.0.1",
        "RESIN_CHROMA_PORT": str(port),
        "RESIN_MODEL": "fake",
    }
    with dev_server(tmp_path / "server.log", tmp_path, env) as server:

        def ready() -> tuple[int, dict]:
            response = httpx.get(f"{server.url}/ready", timeout=30)
            assert SECRET not in response.text
            return response.status_code, response.json()

        status, body = ready()
        assert status == 503 and body["reason"].startswith(f"Chroma server 127.0.0.1:{port}: ")
        with _chroma(tmp_path / "chroma", port):
            assert ready() == (200, {"status": "ready", "index": f"database {pg_shown(url)}"})
            client = get_sync_client(url=server.url, timeout=httpx.Timeout(240, connect=10))
            final = client.runs.wait(None, "resin", input={"question": FIRST})
            assert final["answer"] == "Hessa Varn", tail(server.log)
            pg.stop()
            try:
                status, body = ready()
                assert status == 503, body
                assert body["reason"].startswith(f"database {pg_shown(url)}: connection failed")
            finally:
                pg.start()
            assert ready()[0] == 200
            final = client.runs.wait(None, "resin", input={"question": FIRST})
            assert final["answer"] == "Hessa Varn", tail(server.log)


def pg_shown(url: str) -> str:
    return url.replace(SECRET, "***")
