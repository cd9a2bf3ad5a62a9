"""The chat's live trace through a real `langgraph dev` that bundles ui/trace.tsx, via langgraph_sdk.

agent-chat-ui sends a human message of text blocks and streams "values", "messages-tuple" and
"custom"; it renders each UI message inside the AI message its `message_id` names, loading the
component from POST /ui/<graph>. A client that ignores UI messages reads the same run.
"""

from __future__ import annotations

import html
import re
import time

import httpx
import pytest
from langgraph.graph.ui import ui_message_reducer
from langgraph_sdk import get_sync_client

from .servers import ROOT, dev_server, tail

pytestmark = pytest.mark.slow

QUESTION = "Which was built first, the Orrin Dam or the Brannock Mill?"
# npx fetches the bundler from the npm registry on a machine's first start.
BUNDLE_DEADLINE = 300.0
FINAL = {"answered", "resolved", "not_found", "skipped"}


@pytest.fixture(scope="module")
def server(tmp_path_factory, sample_index):
    """A server started where `ui/` is the checkout's: langgraph.json gives the component's path
    from the working directory. Not the root itself, where another test's server keeps its files.
    """
    start = tmp_path_factory.mktemp("chat-ui")
    (start / "ui").symlink_to(ROOT / "ui")
    env = {"RESIN_INDEX": str(sample_index), "RESIN_MODEL": "fake", "RESIN_PLAN_MODEL": "parsed"}
    with dev_server(start / "langgraph-dev.log", start, env, ui=True) as started:
        deadline = time.monotonic() + BUNDLE_DEADLINE
        while True:
            reply = httpx.post(f"{started.url}/ui/resin", json={"name": "resin_trace"}, timeout=10)
            if reply.status_code == 200:
                break
            assert time.monotonic() < deadline, f"no component bundled\n{tail(started.log)}"
            time.sleep(1)
        started.assets = reply.text
        yield started


def client_for(server):
    return get_sync_client(
        url=server.url, timeout=httpx.Timeout(connect=10.0, read=240.0, write=10.0, pool=10.0)
    )


def chat_input(text: str) -> dict:
    return {"messages": [{"type": "human", "content": [{"type": "text", "text": text}]}]}


def test_the_component_loads_from_another_origin(server):
    """The chat fetches the component's HTML, then its script, by the absolute URL it names."""
    script = f"{server.url}/ui/resin/entrypoint.js"
    assert f'src="{script}"' in server.assets
    assert "resin_trace" in server.assets
    served = httpx.get(script, timeout=10)
    assert served.status_code == 200 and "javascript" in served.headers["content-type"]
    assert "resin-trace" in served.text and "resin-hop" in served.text


def test_ui_messages_arrive_in_order_with_the_plan_hops_and_sources(server):
    client = client_for(server)
    thread = client.threads.create()["thread_id"]
    parts = []
    started = time.monotonic()
    first_ui = None
    for part in client.runs.stream(
        thread,
        "resin",
        input=chat_input(QUESTION),
        stream_mode=["values", "messages-tuple", "custom"],
    ):
        event = part.event.split("|")[0]
        assert event != "error", f"{part.data}\n{tail(server.log)}"
        if event == "custom" and part.data.get("type") == "ui" and first_ui is None:
            first_ui = time.monotonic() - started
        parts.append((event, part.data))
    print(f"first UI message {first_ui:.2f} s after sending (scripted models)")
    values = client.threads.get_state(thread)["values"]
    answer = values["messages"][-1]
    assert answer["type"] == "ai" and answer["content"].startswith(values["answer"])

    custom = [data for event, data in parts if event == "custom"]
    ui = [data for data in custom if data.get("type") == "ui"]
    assert {m["id"] for m in ui} == {f"trace-{answer['id']}"}
    assert {m["metadata"]["message_id"] for m in ui} == {answer["id"]}
    # the plan's trace comes right after the plan event, before any hop is read
    kinds = [data.get("event", "ui") for data in custom]
    assert kinds[:2] == ["plan", "ui"] and kinds.index("hop") > 1
    plan = ui[0]["props"]
    hop_keys = sorted(k for k in plan if k.startswith("hop_"))
    assert len(hop_keys) == len(values["plan"]) == 3  # both dates, then the comparison
    assert all(plan[k]["status"] == "pending" for k in hop_keys)
    assert plan["stage"] == "reading" and plan["question"] == QUESTION
    assert plan["plan"]["source"] == "parsed"
    for key in hop_keys:  # each hop: reading, then its final status, before composing
        statuses = [m["props"][key]["status"] for m in ui if key in m["props"]]
        assert statuses[:2] == ["pending", "reading"] and statuses[2] in FINAL, statuses
    assert [m["props"]["stage"] for m in ui if "stage" in m["props"]] == [
        "reading",
        "composing",
        "done",
    ]

    merged: list = []
    for message in ui:
        merged = ui_message_reducer(merged, message)
    props = merged[0]["props"]
    assert merged == values["ui"][-1:]  # the state keeps what was streamed
    for hop in values["plan"]:
        result = values["results"][str(hop["id"])]
        shown = props[f"hop_{hop['id']}"]
        assert shown["question"] == result["query"] and shown["answer"] == result["answer"]
    assert props["answer"] == values["answer"] and props["found"] is True
    assert len(props["sources"]) == len(values["sources"]) > 0
    for shown, cited in zip(props["sources"], values["sources"], strict=True):
        assert shown["url"].startswith(f"{server.url}/sources/{cited['passage_id']}?sentence=")
        page = httpx.get(shown["url"], timeout=30)
        assert page.status_code == 200, page.text
        assert "<mark" in page.text and cited["title"] in page.text
    # the message's own citations and Sources entries link to the same passages, sentence marked
    links = re.findall(r"\[\[(\d+)\]\]\((\S+?)\)", answer["content"])
    assert len(links) == 2 * len(values["sources"])
    for label, url in links:
        cited = values["sources"][int(label) - 1]
        page = httpx.get(url, timeout=30)
        assert page.status_code == 200, page.text
        assert f">{html.escape(cited['sentence'])}</mark>" in page.text

    # the answer text arrives as message chunks of the message the trace sits in
    said = "".join(
        data[0]["content"]
        for event, data in parts
        if event == "messages" and data[0]["id"] == answer["id"]
    )
    assert said == answer["content"]


def test_a_client_that_ignores_ui_messages_still_gets_the_answer(server):
    client = client_for(server)
    thread = client.threads.create()["thread_id"]
    chunks: dict[str, str] = {}
    for part in client.runs.stream(
        thread, "resin", input=chat_input(QUESTION), stream_mode=["messages-tuple", "updates"]
    ):
        assert part.event.split("|")[0] != "error", part.data
        if part.event == "messages":
            chunk, _ = part.data
            chunks[chunk["id"]] = chunks.get(chunk["id"], "") + (chunk.get("content") or "")
    values = client.threads.get_state(thread)["values"]
    assert [m["type"] for m in values["messages"]] == ["human", "ai"]
    answer = values["messages"][-1]
    assert chunks[answer["id"]] == answer["content"] and answer["content"].strip()
    assert [t for t, text in chunks.items() if text] == [answer["id"]]
    # a client that only waits for the output gets the answer and its trace beside it
    output = client.runs.wait(None, "resin", input={"question": QUESTION})
    assert output["answer"] == values["answer"]
    assert output["ui"][-1]["metadata"]["message_id"] == output["messages"][-1]["id"]
