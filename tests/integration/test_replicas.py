"""One index served from several machines: PostgreSQL and a Chroma server, a builder, two replicas.

Two `langgraph dev` servers, configured only by environment, answer the sample questions as the
embedded store does; a document indexed while they serve is answered by both within seconds, with
no restart; a builder killed mid-batch leaves them on the previous generation, and its rerun ends
with an index equal to a clean build. The second test builds on the first's new document.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import psycopg
import pytest
from langgraph_sdk import get_sync_client

from resin.agent.context import Context
from resin.agent.graph import graph
from resin.cli import main
from resin.evals.crash import NLP, compare, crash_trial, finish, synthetic_corpus
from resin.indexes.maintenance import snapshot
from resin.indexes.opening import close_indexes, open_index

from ..conftest import SAMPLE_DOCS
from .servers import dev_server, tail

pytestmark = pytest.mark.slow

QUESTIONS = [
    json.loads(line)["question"]
    for line in (SAMPLE_DOCS.parent / "questions.jsonl").read_text().splitlines()
    if line.strip()
]
NEW_DOCUMENT = (
    "# Mirel Tapp\n\nMirel Tapp is a surveyor who mapped the Orrin valley. "
    "Mirel Tapp was born in Quossin, a river town.\n"
)
NEW_QUESTION, NEW_ANSWER = "Where was Mirel Tapp born?", "Quossin"
# The first run in a server loads the embedder (tens of seconds on a cold CPU).
FIRST_RUN_SECONDS = 240.0


def _ask(server, question: str, timeout: float = FIRST_RUN_SECONDS) -> str:
    client = get_sync_client(url=server.url, timeout=httpx.Timeout(timeout, connect=10.0))
    final = client.runs.wait(None, "resin", input={"question": question})
    assert isinstance(final, dict) and "answer" in final, f"{final!r}\n{tail(server.log)}"
    return str(final["answer"])


def _generation(url: str) -> int:
    with psycopg.connect(url, options="-c search_path=resin") as conn:
        row = conn.execute("SELECT value FROM generation").fetchone()
    return int(row[0]) if row else 0


@pytest.fixture(scope="module")
def deployment(tmp_path_factory, postgres_url, chroma_port):
    """The sample built into PostgreSQL + Chroma (and into SQLite for reference), two replicas."""
    root = tmp_path_factory.mktemp("replicas")
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("CREATE DATABASE replicas")
    url = postgres_url.rsplit("/", 1)[0] + "/replicas"
    shared = ["--database", url, "--chroma-host", "127.0.0.1", "--chroma-port", str(chroma_port)]
    assert main(["index", str(SAMPLE_DOCS), *NLP, *shared, "--index", str(root / "builder")]) == 0
    assert main(["index", str(SAMPLE_DOCS), *NLP, "--index", str(root / "sq")]) == 0
    close_indexes()
    env = {
        "RESIN_DATABASE_URL": url,
        "RESIN_CHROMA_HOST": "127.0.0.1",
        "RESIN_CHROMA_PORT": str(chroma_port),
        "RESIN_MODEL": "fake",
    }
    replicas = []
    with dev_server(root / "a.log", tmp_path_factory.mktemp("a"), env) as a:
        with dev_server(root / "b.log", tmp_path_factory.mktemp("b"), env) as b:
            replicas = [a, b]
            yield {"root": root, "url": url, "shared": shared, "replicas": replicas}
    close_indexes()


def _embedded_answers(index: Path, questions: list[str]) -> list[str]:
    context = Context(index_path=str(index), hop_model="fake", compose_model="fake")
    return [graph.invoke({"question": q}, context=context)["answer"] for q in questions]


def test_replicas_answer_as_the_embedded_store_and_see_a_new_document(deployment):
    root, replicas = deployment["root"], deployment["replicas"]
    expected = _embedded_answers(root / "sq", QUESTIONS)
    assert all(expected)
    for server in replicas:
        assert [_ask(server, q) for q in QUESTIONS] == expected
        assert NEW_ANSWER not in _ask(server, NEW_QUESTION)

    docs = root / "new"
    docs.mkdir()
    (docs / "tapp.md").write_text(NEW_DOCUMENT)
    before = _generation(deployment["url"])
    build = [sys.executable, "-m", "resin.cli", "index", str(docs), *NLP, *deployment["shared"]]
    build += ["--index", str(root / "builder")]
    subprocess.run(build, check=True, capture_output=True, timeout=300)
    generation = _generation(deployment["url"])
    assert generation > before
    built = time.monotonic()
    for server in replicas:
        # the answer, and the replica's own word that it swapped the new generation in
        while NEW_ANSWER not in (answer := _ask(server, NEW_QUESTION)) or (
            f"resin: generation {generation} of" not in server.log.read_text(errors="replace")
        ):
            assert time.monotonic() - built < 10, f"{answer!r}\n{tail(server.log)}"
            time.sleep(0.5)
    # no restart: the processes that answered first are the ones that answered now
    for server in replicas:
        os.kill(server.pid, 0)


def test_a_builder_killed_mid_batch_leaves_the_last_generation_and_its_rerun_completes(
    deployment, tmp_path
):
    root, replicas, url = deployment["root"], deployment["replicas"], deployment["url"]
    shared = deployment["shared"]
    corpus = synthetic_corpus(tmp_path / "corpus.jsonl", documents=80, seed=5)
    served = {s.url: [_ask(s, q) for q in [*QUESTIONS, NEW_QUESTION]] for s in replicas}
    before = _generation(url)
    # the first of two batches is under way: its rows are not committed
    assert crash_trial(corpus, root / "builder", kill_at=0.4, model_args=[*NLP, *shared])
    assert _generation(url) == before
    for server in replicas:
        assert [_ask(server, q) for q in [*QUESTIONS, NEW_QUESTION]] == served[server.url]

    finish(corpus, root / "builder", model_args=[*NLP, *shared])
    clean = tmp_path / "clean"
    for docs in (SAMPLE_DOCS, root / "new", corpus):
        assert main(["index", str(docs), *NLP, "--index", str(clean)]) == 0
    close_indexes()
    host, port = shared[3], int(shared[5])
    got = snapshot(
        open_index(root / "builder", database=url, chroma_host=host, chroma_port=port, create=True)
    )
    expected = snapshot(open_index(clean))
    assert len(got["units"]) == len(expected["units"]) > 0
    assert compare(expected, got) == {
        "lost": 0,
        "duplicated": 0,
        "extra": 0,
        "mismatched_stores": 0,
    }
