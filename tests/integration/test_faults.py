"""A faulty OpenAI-compatible server on loopback: 500s, timeouts, truncated JSON, garbage.

Every fault must end in bounded retries with backoff and a clear error naming the server; the
index stays intact, the failed passages are retried on the next run and nothing is lost.
"""

import json
import time
import urllib.request
from dataclasses import replace

import pytest

from resin.agent.context import Context
from resin.agent.graph import builder
from resin.agent.llm import ModelBackendError, make_chat_model, register_chat_model
from resin.evals.crash import compare, snapshot
from resin.indexes.build import Builder
from resin.indexes.documents import make_passages
from resin.indexes.extraction import extract_passage
from resin.indexes.opening import close_indexes
from resin.testing.chat import ScriptedChatModel, heuristic_reply
from resin.testing.faults import FAULT_MODES, FaultyServer, fault_documents

DOCS = fault_documents()
TIMEOUT = 0.5  # seconds per try: the slow mode sleeps past it


@pytest.fixture
def server():
    with FaultyServer(delay=2 * TIMEOUT + 0.5) as s:
        yield s


def model_for(server, retries=1, timeout=TIMEOUT):
    return make_chat_model(server.spec("faulty"), timeout=timeout, max_retries=retries)


def test_the_fake_server_answers_like_the_fake_model(server):
    passage = make_passages(DOCS[0])[0]
    served = extract_passage(model_for(server), passage)
    local = extract_passage(ScriptedChatModel(responder=heuristic_reply), passage)
    assert served.ok and [u.id for u in served.units] == [u.id for u in local.units]
    # streaming works too (compose streams its answer)
    chunks = list(model_for(server).stream("Say something about the Orrin Dam."))
    assert "".join(str(c.content) for c in chunks)


@pytest.mark.parametrize("mode", ["500", "slow", "truncated", "hangup", "garbage"])
def test_each_fault_is_retried_with_backoff_then_named_clearly(server, mode):
    server.mode = mode
    started = time.monotonic()
    with pytest.raises(ModelBackendError) as caught:
        # only the slow mode needs the short timeout: elsewhere a loaded machine must not add one
        model_for(server, retries=2, timeout=TIMEOUT if mode == "slow" else 10).invoke("hello")
    elapsed = time.monotonic() - started
    message = str(caught.value)
    assert server.url in message and "gave up after 3 tries" in message
    expected = {
        "500": "HTTP 500",
        "slow": f"no answer within {TIMEOUT} s",
        "truncated": "malformed response",
        "hangup": "connection failed",
        "garbage": "malformed response",
    }[mode]
    assert expected in message, message
    # bounded: exactly 1 + 2 retries, each after a growing pause (0.5 s then 1 s, with jitter);
    # a pause is never shorter than asked, however loaded the machine (a longer one may be)
    assert len(server.requests) == 3
    gaps = [b - a for a, b in zip(server.requests, server.requests[1:], strict=False)]
    if mode != "slow":
        assert gaps[0] >= 0.5 and gaps[1] >= 1.0
    assert elapsed < 3 * (TIMEOUT if mode == "slow" else 0) + 5


def test_mixed_faults_share_one_bound_on_tries(server):
    # a timeout, then bodies that are not completions: still 1 + 2 tries in all, not 3 per kind
    server.queue, server.mode = ["slow"], "truncated"
    with pytest.raises(ModelBackendError, match="malformed response.*gave up after 3 tries"):
        model_for(server, retries=2).invoke("hello")
    assert len(server.requests) == 3


def test_a_stream_that_fails_before_its_first_token_is_retried(server):
    server.queue = ["500", "hangup"]
    chunks = list(model_for(server, retries=2).stream("Say something about the Orrin Dam."))
    assert "".join(str(c.content) for c in chunks) and len(server.requests) == 3
    server.queue = ["500"] * 3
    with pytest.raises(ModelBackendError, match="HTTP 500.*gave up after 2 tries"):
        list(model_for(server, retries=1).stream("Say something."))


def test_retries_and_timeout_come_from_the_environment(server, monkeypatch):
    monkeypatch.setenv("RESIN_MODEL_RETRIES", "0")
    monkeypatch.setenv("RESIN_MODEL_TIMEOUT", str(TIMEOUT))
    server.mode = "slow"
    started = time.monotonic()
    with pytest.raises(ModelBackendError, match="gave up after 1 tries"):
        make_chat_model(server.spec()).invoke("hello")
    assert len(server.requests) == 1 and time.monotonic() - started < TIMEOUT + 1.5
    monkeypatch.setenv("RESIN_MODEL_TIMEOUT", "soon")
    with pytest.raises(ValueError, match="RESIN_MODEL_TIMEOUT"):
        make_chat_model(server.spec())


def test_a_transient_fault_is_absorbed_by_a_retry(server, open_index):
    server.queue = ["500", "500"]
    index = open_index()
    report = Builder(index, model_for(server, retries=2)).run(DOCS)
    assert server.faults == 2 and not report.failed_passages and not report.errors
    assert all(r.complete for r in index.catalog.documents())


@pytest.fixture(scope="module")
def reference(tmp_path_factory, embedder):
    """The index a fault-free build leaves (through the same server, same model name)."""
    from resin.indexes.opening import open_index

    with FaultyServer() as s:
        index = open_index(tmp_path_factory.mktemp("ref") / "index", embedder, create=True)
        Builder(index, model_for(s)).run(DOCS)
        expected = snapshot(index)
        index.close()
    assert expected["units"]
    return expected


@pytest.mark.parametrize("mode", FAULT_MODES)
def test_a_failing_server_leaves_the_index_intact_and_the_next_run_recovers(
    server, open_index, reference, mode
):
    index = open_index()
    model = model_for(server)
    Builder(index, model).run(DOCS[:1])  # one document indexed while the server was healthy
    before = snapshot(index)

    server.mode = mode
    report = Builder(index, model).run(DOCS)  # never raises: the failures are reported
    assert report.documents_indexed == 2 and len(report.failed_passages) == 2
    assert len(report.errors) == 2
    for error in report.errors:
        assert error.startswith(("varn passage 0", "mill passage 0"))
        if mode == "nonsense":  # the server answered; its content was not JSON
            assert "unparseable model output" in error
        else:
            assert server.url in error and "gave up after 2 tries" in error
    # intact: the healthy document is untouched, the failed ones are stored but not complete
    after = snapshot(index)
    assert set(before["units"]) <= set(after["units"])
    assert {u[2] for u in after["units"]} == {"orrin"}
    assert set(after["chroma_units"]) == {u[0] for u in after["units"]}
    assert index.vectors.count("passages") == 3
    records = {r.doc_id: r.complete for r in index.catalog.documents()}
    assert records == {"orrin": True, "varn": False, "mill": False}
    # failed passages were not cached: the next run asks again and nothing is lost
    server.mode = "ok"
    calls_before = len(server.requests)
    index.close()
    reopened = open_index()
    rerun = Builder(reopened, model).run(DOCS)
    assert rerun.model_calls == 2 and not rerun.failed_passages
    assert len(server.requests) - calls_before == 2
    assert all(r.complete for r in reopened.catalog.documents())
    diff = compare(reference, snapshot(reopened))
    assert diff == {"lost": 0, "duplicated": 0, "extra": 0, "mismatched_stores": 0}


def test_graph_with_a_failing_backend_falls_back_or_fails_clearly(
    server, open_index, tmp_path, monkeypatch
):
    index = open_index(tmp_path / "graph-index")
    Builder(index, ScriptedChatModel(responder=heuristic_reply)).run(DOCS)
    index.close()
    register_chat_model("healthy", ScriptedChatModel(responder=heuristic_reply))
    monkeypatch.setenv("RESIN_MODEL_TIMEOUT", str(TIMEOUT))
    monkeypatch.setenv("RESIN_MODEL_RETRIES", "1")
    graph = builder.compile()
    server.mode = "500"
    failing = Context(
        plan_model=server.spec(),
        hop_model=server.spec(),
        compose_model="healthy",
        index_path=str(tmp_path / "graph-index"),
    )
    question = "Where was the designer of the Orrin Dam born?"
    try:
        # plan and bridge calls fail: a structural plan, still answered and cited
        out = graph.invoke({"question": question}, context=failing)
        assert out["plan"][0].question == question and out["answer"] and out["citations"]
        assert server.faults >= 2
        # a failing compose call is a clear error, in bounded time, not a hang
        started = time.monotonic()
        with pytest.raises(ModelBackendError, match="HTTP 500"):
            graph.invoke(
                {"question": question}, context=replace(failing, compose_model=server.spec())
            )
        assert time.monotonic() - started < 30
    finally:
        close_indexes()


def test_the_server_helper_serves_model_listing(server):
    with urllib.request.urlopen(f"{server.url}/models", timeout=5) as response:
        assert json.loads(response.read())["object"] == "list"
