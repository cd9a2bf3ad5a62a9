"""Extraction requests kept in flight against a loopback server with parallel slots."""

import pytest

from agent.llm import make_chat_model
from evals.crash import run_trials, snapshot
from evals.faults import FaultyServer
from indexes.build import Builder
from indexes.documents import Document

pytestmark = pytest.mark.slow

NAMES = ["Orrin Dam", "Tessel Mill", "Kestrel Pass", "Varn Harbor", "Lind Station", "Cald Road"]
DOCS = [
    Document(
        id=f"d{i}",
        title=f"Record {i}",
        text=f"The {NAMES[i % 6]} was repaired by the {NAMES[(i + 1) % 6]} in {1800 + i}.",
    )
    for i in range(48)
]


def test_eight_in_flight_build_faster_never_more_and_the_same_index(open_index, tmp_path):
    with FaultyServer(latency=0.8, slots=16) as server:
        sequential = open_index(tmp_path / "one")
        one = Builder(sequential, make_chat_model(server.spec()), concurrency=1).run(DOCS)
        assert server.peak_open == 1
        concurrent = open_index(tmp_path / "eight")
        eight = Builder(concurrent, make_chat_model(server.spec()), concurrency=8).run(DOCS)
        assert server.peak_open == 8 and eight.peak_in_flight == 8
    assert not one.failed_passages and not eight.failed_passages
    assert one.model_calls == eight.model_calls == len(DOCS)
    speedup = one.seconds / eight.seconds
    print(f"48 passages at 0.8 s per request: {one.seconds:.1f} s vs {eight.seconds:.1f} s")
    assert speedup >= 6, (one.seconds, eight.seconds)
    assert snapshot(sequential) == snapshot(concurrent)  # same unit ids, vectors, edges, mentions


def test_sigkilled_concurrent_builds_resume_with_nothing_lost_or_duplicated(embedder):
    figures = run_trials(trials=3, documents=150, seed=5, embedder=embedder, concurrency=8)
    assert figures["trials"] == 3 and figures["killed_mid_build"] >= 1
    assert figures["units_per_build"] > 100
    assert figures["lost"] == figures["duplicated"] == figures["extra"] == 0
    assert figures["mismatched_stores"] == 0
