"""The resin graph behind a real `langgraph dev` server, driven through langgraph_sdk."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import httpx
import pytest
from langgraph_sdk import get_sync_client

from resin.agent.brief import DESCRIPTION
from resin.evals.checks.concurrent_load import concurrent_questions, run_concurrently

from .servers import ROOT, dev_server, tail

pytestmark = pytest.mark.slow

QUESTION = "In which port was the designer of the Orrin Dam born?"
# The first run loads the embedder inside the server (tens of seconds on a cold CPU).
RUN_DEADLINE = 240.0


@pytest.fixture(scope="module")
def server(tmp_path_factory, sample_index):
    """One `langgraph dev` for the module, started outside the repo; yields url, log, pid, start.

    Its index and model come from the environment (RESIN_INDEX, relative to the start folder, and
    RESIN_MODEL); the tests that name them in a run context get those instead.
    """
    start = tmp_path_factory.mktemp("deploy")
    (start / "served-index").symlink_to(sample_index)
    log_path = tmp_path_factory.mktemp("server-log") / "langgraph-dev.log"
    env = {"RESIN_INDEX": "served-index", "RESIN_MODEL": "fake"}
    with dev_server(log_path, start, env) as started:
        started.start = start
        yield started


def client_for(server):
    return get_sync_client(
        url=server.url, timeout=httpx.Timeout(connect=10.0, read=120.0, write=10.0, pool=10.0)
    )


def fake_context(index: Path) -> dict[str, str]:
    return {
        "plan_model": "fake",
        "hop_model": "fake",
        "compose_model": "fake",
        "index_path": str(index),
    }


def tree_rss_mb(pid: int) -> float:
    """Resident memory of a process and its descendants, from /proc."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    tree, frontier = {pid}, [pid]
    while frontier:
        children = [c for c, p in parents.items() if p == frontier[-1]]
        frontier.pop()
        frontier += [c for c in children if c not in tree]
        tree.update(children)
    total = 0.0
    for member in tree:
        try:
            status = Path(f"/proc/{member}/status").read_text()
        except OSError:
            continue
        match = re.search(r"VmRSS:\s+(\d+) kB", status)
        total += int(match.group(1)) / 1024 if match else 0.0
    return total


def test_streams_plan_hops_and_answer_tokens_over_the_api(server, sample_index):
    client = client_for(server)
    thread = client.threads.create()
    context = fake_context(sample_index)
    custom: list[dict] = []
    tokens: list[str] = []
    updates: list[dict] = []
    started = time.monotonic()
    for part in client.runs.stream(
        thread["thread_id"],
        "resin",
        input={"question": QUESTION},
        context=context,
        stream_mode=["updates", "messages-tuple", "custom"],
    ):
        assert time.monotonic() - started < RUN_DEADLINE, "the run took too long"
        event = part.event.split("|")[0]
        assert event != "error", f"{part.data}\n{tail(server.log)}"
        if event == "custom":
            custom.append(part.data)
        elif event == "updates":
            updates.append(part.data)
        # "messages-tuple" parts arrive as event "messages": [chunk, metadata]
        elif event in ("messages", "messages-tuple"):
            chunk, metadata = part.data
            if metadata.get("langgraph_node") == "compose" and chunk.get("content"):
                tokens.append(chunk["content"])

    assert tokens, "no answer tokens were streamed from the compose node"

    kinds = [e.get("event") for e in custom]
    assert kinds[0] == "plan"
    assert kinds.count("plan") == 1
    hops = [e for e in custom if e.get("event") == "hop"]
    assert hops
    for hop in hops:
        assert {"hop", "status", "units", "passages", "chains"} <= hop.keys()
    assert "composing" in kinds
    assert kinds.index("composing") > max(i for i, k in enumerate(kinds) if k == "hop")
    assert any("compose" in u for u in updates)

    state = client.threads.get_state(thread["thread_id"])
    assert state["next"] == []
    values = state["values"]
    assert values["answer"].strip()
    held = {e["passage_id"] for e in values["evidence"]}
    assert values["citations"]
    assert set(values["citations"]) <= held
    last = values["messages"][-1]
    assert last["type"] == "ai"
    assert last["content"].strip()
    # The streamed tokens are the final message.
    assert "".join(tokens).strip() == last["content"].strip()


def test_twenty_threads_at_once_through_the_server_complete_without_crosstalk(server, sample_index):
    """20 runs in flight on 20 threads, 3 rounds: each ends with its own question's evidence."""
    client = client_for(server)
    questions = concurrent_questions(20)
    assert len(questions) == 20
    # what each question yields alone, in this process, over the same index and models
    alone = run_concurrently(sample_index, questions, "fake", 1)
    reference = {
        q: {e.id for e in out["evidence"]} for q, out in zip(questions, alone, strict=True)
    }
    assert len({frozenset(ids) for ids in reference.values()}) >= 15  # question-specific buffers
    rss = []
    for _ in range(3):
        threads = [client.threads.create()["thread_id"] for _ in questions]
        runs = [
            client.runs.create(
                t, "resin", input={"question": q}, context=fake_context(sample_index)
            )
            for t, q in zip(threads, questions, strict=True)
        ]
        for thread_id, run, question in zip(threads, runs, questions, strict=True):
            client.runs.join(thread_id, run["run_id"])
            assert client.runs.get(thread_id, run["run_id"])["status"] == "success", tail(
                server.log
            )
            values = client.threads.get_state(thread_id)["values"]
            assert values["question"] == question
            held = {e["passage_id"] for e in values["evidence"]}
            assert {e["id"] for e in values["evidence"]} == reference[question]
            assert values["answer"].strip()
            assert set(values["citations"]) <= held
        rss.append(tree_rss_mb(server.pid))
    print(f"langgraph dev RSS after each round of 20 runs (MB): {[round(r) for r in rss]}")
    # Threads and their checkpoints stay in the dev server's memory by design; the rest is flat.
    assert rss[2] - rss[1] < 100, rss


def chat_turn(client, thread_id: str, text: str, context: dict[str, str]) -> dict:
    """One turn as agent-chat-ui sends it: a human message of text blocks, its stream modes."""
    custom, messages = [], {}
    for part in client.runs.stream(
        thread_id,
        "resin",
        input={"messages": [{"type": "human", "content": [{"type": "text", "text": text}]}]},
        context=context,
        stream_mode=["values", "messages-tuple", "custom"],
    ):
        event = part.event.split("|")[0]
        assert event != "error", part.data
        if event == "custom":
            custom.append(part.data)
        elif event in ("messages", "messages-tuple"):
            chunk, _ = part.data
            messages[chunk["id"]] = messages.get(chunk["id"], "") + (chunk.get("content") or "")
    return {"custom": custom, "streamed": messages}


def test_a_chat_client_sending_content_blocks_gets_a_short_answer_with_sources(
    server, sample_index
):
    client = client_for(server)
    thread_id = client.threads.create()["thread_id"]
    context = fake_context(sample_index)
    second = "Which mountain pass does the Salt Ledger Road cross?"
    for turn, question in enumerate((QUESTION, second), 1):
        seen = chat_turn(client, thread_id, question, context)
        plan = next(e for e in seen["custom"] if e.get("event") == "plan")
        assert question in plan["hops"][0]["question"]  # the text, not a repr of the blocks
        assert "'type'" not in plan["hops"][0]["question"]
        values = client.threads.get_state(thread_id)["values"]
        ai = [m for m in values["messages"] if m["type"] == "ai"]
        assert len(ai) == turn  # one AI message per turn
        message = ai[-1]["content"]
        assert message in seen["streamed"].values()  # the chat saw the message as it was stored
        assert message.splitlines()[0] == values["answer"]
        held = {e["passage_id"] for e in values["evidence"]}
        assert values["sources"] and {s["passage_id"] for s in values["sources"]} <= held
        assert "Sources:" in message
        for source in values["sources"]:  # each label a link to the server's passage page
            link = f"[[{source['label']}]]({server.url}/sources/{source['passage_id']}?sentence="
            assert f"- {link}" in message and f" {source['title']}: " in message
    assert values["question"] == second


def answer_of(client, thread_id: str, run_input: dict, context: dict | None = None) -> dict:
    """Run to the end on a thread; the thread's values after it."""
    run = client.runs.create(thread_id, "resin", input=run_input, context=context)
    client.runs.join(thread_id, run["run_id"])
    assert client.runs.get(thread_id, run["run_id"])["status"] == "success"
    return client.threads.get_state(thread_id)["values"]


def test_a_server_started_elsewhere_answers_from_the_environment_s_index(server, sample_index):
    """No run context at all: RESIN_INDEX (relative to the working directory) and RESIN_MODEL."""
    question = {"messages": [{"role": "user", "content": QUESTION}]}
    client = client_for(server)
    values = answer_of(client, client.threads.create()["thread_id"], question)
    # the same question with the scripted models and the index named in a run context
    # (RESIN_MODEL sets the hop and compose models; the planner stays auto)
    context = {**fake_context(sample_index), "plan_model": "auto"}
    named = answer_of(client, client.threads.create()["thread_id"], question, context)
    assert values["answer"].strip() and values["sources"], tail(server.log)
    assert {e["passage_id"] for e in values["evidence"]} >= set(values["citations"])
    assert (values["answer"], values["citations"]) == (named["answer"], named["citations"])
    log = server.log.read_text(errors="replace")
    assert f"resin: index {(server.start / 'served-index').resolve()}" in log


def two_turns_reload_no_unregistered_type(srv, sample_index) -> None:
    """The second turn reloads the first's checkpoint: no unregistered type, its own answer."""
    second = "Who designed the Orrin Dam?"
    client = client_for(srv)
    thread = client.threads.create()["thread_id"]
    context = fake_context(sample_index)
    first = answer_of(
        client, thread, {"messages": [{"role": "user", "content": QUESTION}]}, context
    )
    again = answer_of(client, thread, {"messages": [{"role": "user", "content": second}]}, context)
    follow = answer_of(
        client, thread, {"messages": [{"role": "user", "content": "When was it built?"}]}, context
    )
    alone = answer_of(
        client,
        client.threads.create()["thread_id"],
        {"messages": [{"role": "user", "content": second}]},
        context,
    )
    log = srv.log.read_text(errors="replace")
    assert "unregistered type" not in log and "Blocked deserialization" not in log, tail(srv.log)
    assert again["question"] == second and first["question"] == QUESTION
    assert again["answer"] == alone["answer"]
    assert {e["id"] for e in again["evidence"]} == {e["id"] for e in alone["evidence"]}
    assert [m["type"] for m in again["messages"]] == ["human", "ai", "human", "ai"]
    # a follow-up on the thread is read with the previous turn ("it": not the person it named)
    assert follow["asked"] == "When was it built?"
    assert follow["question"] == "When was the Orrin Dam built?"


def test_two_turns_on_one_thread_reload_no_unregistered_type(server, sample_index):
    two_turns_reload_no_unregistered_type(server, sample_index)


def test_two_turns_under_strict_msgpack_reload_no_blocked_type(tmp_path, sample_index):
    """Strict msgpack is set when the server starts: this one needs a server of its own."""
    env = {"LANGGRAPH_STRICT_MSGPACK": "true"}
    with dev_server(tmp_path / "server.log", ROOT, env) as srv:
        two_turns_reload_no_unregistered_type(srv, sample_index)


def mcp_post(server, **kwargs) -> httpx.Response:
    """One message to the server's /mcp, with the Accept header Streamable HTTP asks for."""
    headers = {"Accept": "application/json, text/event-stream"}
    return httpx.post(f"{server.url}/mcp", headers=headers, timeout=RUN_DEADLINE, **kwargs)


def rpc(method: str, params: dict | None = None, id_: int = 1) -> dict:
    return {"jsonrpc": "2.0", "id": id_, "method": method, "params": params or {}}


def test_an_mcp_client_gets_resin_s_description_and_a_compact_json_brief(server):
    """Over /mcp: the tool says what resin does; a call answers JSON, not a repr of the state."""
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t"}}
    init = mcp_post(server, json=rpc("initialize", hello))
    assert init.status_code == 200, tail(server.log)
    assert init.json()["result"]["protocolVersion"] == "2025-06-18"
    assert init.json()["result"]["serverInfo"]["name"] == "resin"
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert mcp_post(server, json=initialized).status_code == 202

    tools = mcp_post(server, json=rpc("tools/list", id_=2)).json()["result"]["tools"]
    assert [t["name"] for t in tools] == ["resin"]
    assert tools[0]["description"] == DESCRIPTION
    assert not tools[0]["description"].startswith("Tool based on")

    question = "Who designed the Orrin Dam?"
    call = rpc("tools/call", {"name": "resin", "arguments": {"question": question}}, id_=3)
    reply = mcp_post(server, json=call).json()
    assert reply["id"] == 3
    result = reply["result"]
    assert not result.get("isError"), result
    text = result["content"][0]["text"]
    print(f"tools/call text ({len(text)} characters): {text}")
    assert len(text) <= 2000
    brief = json.loads(text)
    assert brief == result["structuredContent"]
    assert brief["question"] == question
    assert brief["answer"] == "Hessa Varn"
    assert any(s["title"] and s["sentence"] for s in brief["sources"])
    assert brief["hops"] and brief["hops"][0]["id"] == 1
    assert all(h["question"] and h["status"] for h in brief["hops"])
    assert "evidence" not in brief and "plan" not in brief

    # protocol errors
    missing = mcp_post(server, json=rpc("resources/list", id_=4)).json()
    assert missing["error"]["code"] == -32601
    assert mcp_post(server, content=b"{oops").json()["error"]["code"] == -32700
    assert httpx.get(f"{server.url}/mcp", timeout=10).status_code == 405

    # Python and Studio callers of the runs API keep the full output state
    full = client_for(server).runs.wait(None, "resin", input={"question": question})
    assert full["answer"] == "Hessa Varn"
    assert full["evidence"] and full["plan"] and full["results"] and full["sources"]


def test_studio_reads_the_graph_schemas_and_per_hop_state(server, sample_index):
    """What LangGraph Studio asks the server for: the drawn graph, the forms' schemas, the state."""
    client = client_for(server)
    assistant = client.assistants.search(graph_id="resin")[0]["assistant_id"]
    drawn = client.assistants.get_graph(assistant, xray=True)
    nodes = {n["id"] for n in drawn["nodes"]}
    assert {"plan", "dispatch", "resolve_hop", "compose"} <= nodes
    schemas = client.assistants.get_schemas(assistant)
    assert "question" in schemas["input_schema"]["properties"]
    assert {"answer", "citations"} <= schemas["output_schema"]["properties"].keys()
    assert {"plan", "results", "evidence"} <= schemas["state_schema"]["properties"].keys()
    # the run's settings form: every field described, as the Context dataclass documents it
    fields = schemas["context_schema"]["properties"]
    assert {"plan_model", "index_path", "answer_mode"} <= fields.keys()
    assert all(f.get("description") for f in fields.values()), fields

    thread = client.threads.create()["thread_id"]
    context = {**fake_context(sample_index), "plan_model": "parsed"}
    values = answer_of(client, thread, {"question": QUESTION}, context)
    # the state view: each hop's question and its own answer, as plain JSON
    hops = {hop["id"]: hop for hop in values["plan"]}
    assert len(hops) == 2
    assert hops[2]["depends_on"] == [1] and "#1" in hops[2]["question"]
    assert values["results"]["1"]["answer"] == "Hessa Varn"
    assert values["results"]["2"]["answer"] == "Caldmere"
