"""Extraction requests kept in flight against a loopback server with parallel slots."""

import pytest

from resin.agent.llm import make_chat_model
from resin.evals.crash import run_trials, snapshot
from resin.indexes.build import Builder
from resin.indexes.documents import Document
from resin.testing.faults import FaultyServer

pytestmark = pytest.mark.slow

NAMES = ["Orrin Dam", "Tessel Mill", "Kestrel Pass", "Varn Harbor", "Lind Station", "Cald Road"]
DOCS = [
    Document(
        id=f"d{i}",
        title=f"Record {i}",
        text=f"The {NAMES[i % 6]} was repaired by the {NAMES[(i + 1) % 6]} in {1800 + i}.",
    )
    for i in range(24)
]
LATENCY = 0.5  # seconds per request


def test_eight_in_flight_build_faster_never_more_and_the_same_index(open_index, tmp_path):
    with FaultyServer(latency=LATENCY, slots=16) as server:
        sequential = open_index(tmp_path / "one")
        one = Builder(sequential, make_chat_model(server.spec()), concurrency=1).run(DOCS)
        assert server.peak_open == 1
        concurrent = open_index(tmp_path / "eight")
        eight = Builder(concurrent, make_chat_model(server.spec()), concurrency=8).run(DOCS)
        assert server.peak_open == 8 and eight.peak_in_flight == 8
    assert not one.failed_passages and not eight.failed_passages
    assert one.model_calls == eight.model_calls == len(DOCS)
    print(
        f"{len(DOCS)} passages at {LATENCY} s per request: {one.seconds:.1f} s vs {eight.seconds:.1f} s"
    )
    # eight at a time waits len/8 latencies, not len: at least half of that saving, whatever the
    # machine's load adds to both builds
    saved = (len(DOCS) - len(DOCS) / 8) * LATENCY
    assert one.seconds - eight.seconds >= saved / 2, (one.seconds, eight.seconds)
    assert snapshot(sequential) == snapshot(concurrent)  # same unit ids, vectors, edges, mentions


def test_sigkilled_concurrent_builds_resume_with_nothing_lost_or_duplicated(embedder):
    figures = run_trials(trials=2, documents=80, seed=5, embedder=embedder, concurrency=8)
    assert figures["trials"] == figures["killed_mid_build"] == 2
    assert figures["units_per_build"] > 80
    assert figures["lost"] == figures["duplicated"] == figures["extra"] == 0
    assert figures["mismatched_stores"] == 0
