"""The index in PostgreSQL with its vectors on a Chroma server: the same index as SQLite + JSON.

The sample corpus is built with the parser extractor into both backends; `resin stats` and the
answers to the sample questions (the default ranked mode) must be the same, a migrated index must
equal a direct build, and only one builder may hold the PostgreSQL index at a time.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time

import pytest

from resin.agent.context import Context
from resin.agent.graph import graph
from resin.cli import main
from resin.evals.postgres import create_database
from resin.indexes.locks import IndexBusyError
from resin.indexes.opening import close_indexes, open_index

from ..conftest import SAMPLE_DOCS

pytestmark = pytest.mark.slow

QUESTIONS = [
    json.loads(line)
    for line in (SAMPLE_DOCS.parent / "questions.jsonl").read_text().splitlines()
    if line.strip()
]


def _stats(capsys, *args: str) -> dict:
    capsys.readouterr()
    assert main(["stats", "--json", *args]) == 0
    figures = json.loads(capsys.readouterr().out)
    figures.pop("extraction_models")  # the same list, as the manifest keeps it
    return figures


def _answers(**where) -> dict[str, tuple[str, list[str]]]:
    """Each sample question's answer and cited passages."""
    answers = {}
    for item in QUESTIONS:
        final = graph.invoke({"question": item["question"]}, context=Context(**where))
        answers[item["id"]] = (final["answer"], sorted(final["citations"]))
    return answers


@pytest.fixture(scope="module")
def builds(tmp_path_factory, postgres_url, chroma_port):
    """The sample built into SQLite + embedded Chroma, and into PostgreSQL + the Chroma server."""
    root = tmp_path_factory.mktemp("pg-index")
    server = ["--chroma-host", "127.0.0.1", "--chroma-port", str(chroma_port)]
    direct = create_database(postgres_url, "direct")
    assert main(["index", str(SAMPLE_DOCS), "--extract", "nlp", "--index", str(root / "sq")]) == 0
    pg = ["--database", direct, *server, "--index", str(root / "pg")]
    assert main(["index", str(SAMPLE_DOCS), "--extract", "nlp", *pg]) == 0
    close_indexes()
    yield {"sqlite": ["--index", str(root / "sq")], "pg": pg, "url": direct, "root": root}
    close_indexes()


def test_stats_of_a_postgres_build_equal_the_sqlite_build(builds, capsys):
    sqlite, pg = _stats(capsys, *builds["sqlite"]), _stats(capsys, *builds["pg"])
    assert sqlite["units"] > 0 and sqlite["graph_edges"] > 0
    assert pg == sqlite
    # the integrity check reads the PostgreSQL stores as it reads the files
    assert main(["index", "--check", *builds["pg"]]) == 0


def test_answers_from_postgres_equal_those_from_sqlite(builds, chroma_port):
    sqlite = _answers(index_path=builds["sqlite"][1])
    pg = _answers(
        index_path=str(builds["root"] / "pg"),
        database=builds["url"],
        chroma_host="127.0.0.1",
        chroma_port=chroma_port,
    )
    assert any(answer for answer, _ in sqlite.values())
    assert pg == sqlite


def test_database_without_a_chroma_server_is_refused_in_one_line(builds, capsys):
    assert main(["stats", "--database", builds["url"], "--index", str(builds["root"])]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --database") and "--chroma-host" in err
    assert len(err.strip().splitlines()) == 1


def test_a_second_builder_waits_for_the_first_or_says_who_holds_it(builds, capsys):
    index = open_index(
        builds["root"] / "pg",
        database=builds["url"],
        chroma_host=builds["pg"][3],
        chroma_port=int(builds["pg"][5]),
    )
    held, release = threading.Event(), threading.Event()

    def first_builder() -> None:
        with index.build_lock():
            held.set()
            release.wait(30)

    thread = threading.Thread(target=first_builder)
    thread.start()
    try:
        assert held.wait(30)
        with pytest.raises(IndexBusyError, match="resin builder pid"):
            with index.build_lock(wait=False):
                pass
        capsys.readouterr()
        assert (
            main(["index", str(SAMPLE_DOCS), "--extract", "nlp", "--no-wait", *builds["pg"]]) == 1
        )
        assert "is being built by another builder (resin builder pid" in capsys.readouterr().err
        said: list[str] = []
        threading.Timer(1.0, release.set).start()
        started = time.monotonic()
        with index.build_lock(on_wait=said.append):
            waited = time.monotonic() - started
        assert waited >= 0.5 and said and said[0].startswith("waiting for the builder")
    finally:
        release.set()
        thread.join()


def test_a_migrated_index_equals_a_direct_build(builds, postgres_url, chroma_port, capsys):
    target = create_database(postgres_url, "migrated")
    server = ["--chroma-host", "127.0.0.1", "--chroma-port", str(chroma_port)]
    capsys.readouterr()
    assert main(["index", *builds["sqlite"], "--migrate-to", target, *server]) == 0
    report = capsys.readouterr().out
    direct = _stats(capsys, *builds["pg"])
    for kind in ("documents", "passages", "units", "graph nodes", "graph edges"):
        figure = direct[kind.replace(" ", "_")]
        assert f"  {kind:<22}{figure}\n" in report, report
    assert "units vectors" in report and "extractions" in report
    migrated = ["--database", target, *server, "--index", str(builds["root"] / "mig")]
    assert _stats(capsys, *migrated) == direct
    # a second migration into the same database is refused: it holds an index now
    assert main(["index", *builds["sqlite"], "--migrate-to", target, *server]) == 2
    assert "already holds a resin index" in capsys.readouterr().err
    answers = _answers(
        index_path=str(builds["root"] / "mig"),
        database=target,
        chroma_host="127.0.0.1",
        chroma_port=chroma_port,
    )
    assert answers == _answers(
        index_path=str(builds["root"] / "pg"),
        database=builds["url"],
        chroma_host="127.0.0.1",
        chroma_port=chroma_port,
    )


def test_a_rebuild_and_a_delete_in_postgres_match_sqlite(
    tmp_path, postgres_url, chroma_port, capsys
):
    """The graph's saves of changed rows only: a rerun changes nothing, a delete drops rows."""
    server = ["--chroma-host", "127.0.0.1", "--chroma-port", str(chroma_port)]
    sqlite = ["--index", str(tmp_path / "sq")]
    pg = ["--database", create_database(postgres_url, "edits"), *server, "--index", str(tmp_path / "pg")]
    for where in (sqlite, pg):
        assert main(["index", str(SAMPLE_DOCS), "--extract", "nlp", *where]) == 0
    capsys.readouterr()
    assert main(["index", str(SAMPLE_DOCS), "--extract", "nlp", *pg]) == 0
    assert "0 documents indexed, 14 unchanged" in capsys.readouterr().out
    for where in (sqlite, pg):
        assert main(["index", "--delete", "orrin-dam", *where]) == 0
    close_indexes()  # what PostgreSQL holds, read afresh
    assert _stats(capsys, *pg) == _stats(capsys, *sqlite)
    edges = []
    for where in (sqlite, pg):
        index = open_index(
            tmp_path / where[-1].rsplit("/", 1)[-1],
            database=where[1] if where is pg else None,
            chroma_host="127.0.0.1" if where is pg else None,
            chroma_port=chroma_port,
        )
        edges.append([(h, t, a) for h, t, a in index.graph.edges()])
    assert edges[0] == edges[1] and edges[0]


def test_a_replica_follows_generations_by_notify_and_by_polling(postgres_url):
    from resin.indexes.pg_catalog import PgCatalog
    from resin.indexes.pg_graph import CHANNEL, follow

    catalog = PgCatalog(create_database(postgres_url, "follow"))
    seen: list[int] = []
    stop = threading.Event()
    poll = 2.0
    thread = threading.Thread(
        target=follow, args=(catalog.url, lambda: max(seen, default=0), seen.append, stop, poll)
    )
    thread.start()

    def bump(notify: bool) -> float:
        with catalog.connection() as conn:
            (value,) = conn.execute(
                "UPDATE generation SET value = value + 1 RETURNING value"
            ).fetchone()
            if notify:
                conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, str(value)))
        started = time.monotonic()
        while value not in seen:
            assert time.monotonic() - started < 3 * poll, seen
            time.sleep(0.05)
        return time.monotonic() - started

    try:
        time.sleep(0.5)  # listening
        assert bump(notify=True) < poll / 2  # woken by the notification, not the poll
        assert bump(notify=False) < 1.5 * poll  # no notification: the poll finds it
        assert seen == [1, 2]
    finally:
        stop.set()
        thread.join(3 * poll)
        catalog.close()
    assert not thread.is_alive()


def test_a_changed_document_cut_short_keeps_the_committed_generation_whole(
    tmp_path, postgres_url, chroma_port, monkeypatch
):
    """Its old vectors go only after the batch commits: a failed batch leaves every row's vectors."""
    import shutil

    import resin.indexes.build as build_module
    from resin.indexes.maintenance import snapshot

    docs = tmp_path / "docs"
    shutil.copytree(SAMPLE_DOCS, docs)
    sqlite = ["--index", str(tmp_path / "sq")]
    url = create_database(postgres_url, "changed")
    server = ["--chroma-host", "127.0.0.1", "--chroma-port", str(chroma_port)]
    pg = ["--database", url, *server, "--index", str(tmp_path / "pg")]
    for where in (sqlite, pg):
        assert main(["index", str(docs), "--extract", "nlp", *where]) == 0
    changed = sorted(docs.iterdir())[0]
    changed.write_text(changed.read_text() + "\nThe Brannock Mill was repaired by Ansel Morrow in 1931.\n")

    def reopened():
        close_indexes()
        return open_index(
            tmp_path / "pg", database=url, chroma_host="127.0.0.1", chroma_port=chroma_port
        )

    before = snapshot(reopened())

    def killed(*args, **kwargs):
        raise KeyboardInterrupt  # as a kill lands: after the old units were removed, before commit

    with monkeypatch.context() as m:
        m.setattr(build_module, "store_units", killed)
        with pytest.raises(KeyboardInterrupt):
            main(["index", str(docs), "--extract", "nlp", *pg])
    after = snapshot(reopened())
    assert after["units"] == before["units"] and after["edges"] == before["edges"]
    assert {uid for uid, *_ in before["units"]} <= set(after["chroma_units"])

    reader = reopened()
    assert main(["index", str(docs), "--extract", "nlp", *sqlite]) == 0
    # another builder than this process's reader, as on another machine
    rebuild = [sys.executable, "-m", "resin.cli", "index", str(docs), "--extract", "nlp", *pg]
    subprocess.run(rebuild, check=True, capture_output=True, timeout=300)
    # a replica's reload reads the generation, and holds what a fresh open does
    reloaded = reader.reloaded()
    assert reloaded.generation > reader.generation
    assert reloaded.entity_named("Ansel Morrow") is not None
    held = snapshot(reloaded)
    close_indexes()
    expected = snapshot(open_index(tmp_path / "sq"))
    got = snapshot(reopened())
    assert held == got
    assert got["units"] == expected["units"] != before["units"]
    assert got["edges"] == expected["edges"]
    assert got["chroma_units"] == expected["chroma_units"]
    assert got["chroma_passages"] == expected["chroma_passages"]
    close_indexes()
