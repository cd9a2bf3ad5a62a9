"""resin as other agents see it over MCP: the compact brief of a run and the /mcp endpoint."""

import json
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest
from pydantic import TypeAdapter
from starlette.testclient import TestClient

from resin.agent import server
from resin.agent.brief import DESCRIPTION, MAX_NOTES, NOTE_CHARS, SENTENCE_CHARS, brief
from resin.agent.context import Context
from resin.agent.graph import graph
from resin.agent.state import OutputState

from ..conftest import FIRST

ROOT = Path(__file__).resolve().parents[2]
BOUND = 2000


@pytest.fixture(scope="module")
def output(sample_index):
    """The graph's output for the sample question, in-process: models, int hop ids."""
    context = Context.one_model("fake", plan_model="auto", index_path=str(sample_index))
    return graph.invoke({"question": FIRST}, context=context)


def as_json(output):
    """The same output as an HTTP client gets it: plain dicts, hop ids as string keys."""
    return json.loads(json.dumps(TypeAdapter(OutputState).dump_python(output, mode="json")))


def test_the_brief_of_a_run_is_small_json_with_the_answer_its_sources_and_hops(output):
    assert len(json.dumps(as_json(output))) > 2 * BOUND  # what it replaces
    result = brief(output)
    text = json.dumps(result, ensure_ascii=False)
    assert len(text) <= BOUND, text
    assert json.loads(text) == result
    assert set(result) == {"question", "answer", "sources", "hops", "notes"}
    assert result["question"] == FIRST
    assert result["answer"] == output["answer"] == "Hessa Varn"
    assert result["sources"]
    for source, full in zip(result["sources"], output["sources"], strict=True):
        assert set(source) == {"label", "title", "sentence"}
        assert source == {k: full[k] for k in source}
    assert [h["id"] for h in result["hops"]] == [h.id for h in output["plan"]]
    for hop in result["hops"]:
        assert set(hop) == {"id", "question", "answer", "status"}
        full = output["results"][hop["id"]]
        assert (hop["question"], hop["answer"], hop["status"]) == (
            full.query,
            full.answer,
            full.status,
        )


def test_the_brief_reads_the_output_as_it_arrives_over_http(output):
    plain = as_json(output)
    assert set(plain["results"]) == {str(h.id) for h in output["plan"]}
    assert brief(plain) == brief(output)


def test_long_sentences_and_notes_are_cut_and_a_not_found_answer_is_kept():
    long = "The Orrin Dam " + "holds back the Tessel River and " * 40 + "ends here."
    output = {
        "question": "Who built it?",
        "answer": "I could not find this in the documents.",
        "sources": [
            {"label": 1, "passage_id": "p1", "title": "T", "sentence_id": "p1:0", "sentence": long}
        ],
        "plan": [
            {"id": 1, "question": "Who designed #0?"},
            {"id": 2, "question": "Where was #1 born?", "depends_on": [1]},
        ],
        "results": {"1": {"hop": 1, "query": "Who designed it?", "status": "unresolved"}},
        "notes": [long] + [f"note {i}" for i in range(MAX_NOTES + 2)],
    }
    result = brief(output)
    assert result["answer"] == output["answer"]
    sentence = result["sources"][0]["sentence"]
    assert len(sentence) <= SENTENCE_CHARS and sentence.endswith("…")
    assert long.startswith(sentence[:-1])
    assert len(result["notes"]) == MAX_NOTES + 1
    assert len(result["notes"][0]) <= NOTE_CHARS
    assert result["notes"][-1] == "(+3 more notes)"
    assert result["hops"] == [
        {"id": 1, "question": "Who designed it?", "answer": "", "status": "unresolved"},
        {"id": 2, "question": "Where was #1 born?", "answer": "", "status": "not run"},
    ]
    assert len(json.dumps(result, ensure_ascii=False)) <= BOUND


def test_langgraph_json_describes_the_graph_in_the_tool_s_words():
    config = json.loads((ROOT / "langgraph.json").read_text())
    assert config["graphs"]["resin"]["description"] == DESCRIPTION
    assert config["http"] == {"app": "resin.agent.server:app", "disable_mcp": True}
    assert server.TOOL["description"] == DESCRIPTION


def rpc(method, params=None, id_=1):
    message = {"jsonrpc": "2.0", "id": id_, "method": method}
    return message if params is None else {**message, "params": params}


ACCEPT = {"Accept": "application/json, text/event-stream"}


@pytest.fixture
def mcp(monkeypatch):
    """The /mcp app with a stand-in for the server's runs API; `calls` records its inputs."""
    calls, outputs = [], []

    async def wait(thread_id, assistant_id, *, input, raise_error):
        calls.append((thread_id, assistant_id, input, raise_error))
        out = outputs.pop(0)
        if isinstance(out, Exception):
            raise out
        return out

    runs = SimpleNamespace(wait=wait)
    monkeypatch.setattr(server, "_client", lambda: SimpleNamespace(runs=runs))
    with TestClient(server.app) as client:
        yield SimpleNamespace(
            post=lambda body: client.post("/mcp", json=body, headers=ACCEPT),
            client=client,
            calls=calls,
            outputs=outputs,
        )


def test_mcp_handshake_list_and_protocol_errors(mcp):
    init = mcp.post(rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}}))
    assert init.status_code == 200
    assert init.json() == {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}},
            "serverInfo": {
                "name": "resin",
                "version": init.json()["result"]["serverInfo"]["version"],
            },
        },
    }
    old = mcp.post(rpc("initialize", {"protocolVersion": "1999-01-01"}))
    assert old.json()["result"]["protocolVersion"] == "2025-03-26"
    note = mcp.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert (note.status_code, note.content) == (202, b"")
    assert mcp.post(rpc("ping", id_="p")).json() == {"jsonrpc": "2.0", "id": "p", "result": {}}
    tools = mcp.post(rpc("tools/list")).json()["result"]["tools"]
    assert [t["name"] for t in tools] == ["resin"]
    assert tools[0]["description"] == DESCRIPTION
    assert tools[0]["inputSchema"]["required"] == ["question"]
    assert tools[0]["inputSchema"]["properties"]["question"]["type"] == "string"
    missing = mcp.post(rpc("resources/list", id_=7)).json()
    assert missing["id"] == 7 and missing["error"]["code"] == -32601
    bad = mcp.client.post("/mcp", content=b"{not json", headers=ACCEPT)
    assert bad.status_code == 400 and bad.json()["error"]["code"] == -32700
    assert mcp.client.get("/mcp", headers=ACCEPT).status_code == 405
    unknown = mcp.post(rpc("tools/call", {"name": "other", "arguments": {"question": "q"}}))
    assert unknown.json()["error"]["code"] == -32602
    assert not mcp.calls


def test_mcp_tool_call_returns_the_brief_or_the_run_s_error(mcp, output):
    mcp.outputs += [
        as_json(output),
        {"__error__": {"error": "ValueError", "message": "boom"}},
        httpx.ConnectError("server gone"),
    ]
    call = rpc("tools/call", {"name": "resin", "arguments": {"question": FIRST}})
    result = mcp.post(call).json()["result"]
    assert mcp.calls == [(None, "resin", {"question": FIRST}, False)]
    assert "isError" not in result
    [content] = result["content"]
    assert content["type"] == "text"
    assert json.loads(content["text"]) == result["structuredContent"] == brief(output)
    failed = mcp.post(call).json()["result"]
    assert failed == {"isError": True, "content": [{"type": "text", "text": "ValueError: boom"}]}
    gone = mcp.post(call).json()["result"]
    assert gone["isError"] is True and "server gone" in gone["content"][0]["text"]
    empty = rpc("tools/call", {"name": "resin", "arguments": {"question": " "}})
    assert mcp.post(empty).json()["result"]["isError"] is True
    assert len(mcp.calls) == 3
