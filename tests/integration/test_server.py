"""The resin graph behind a real `langgraph dev` server, driven through langgraph_sdk."""

from __future__ import annotations

import sys
import time
from contextlib import ExitStack
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest
from langgraph_sdk import get_sync_client

from tests.integration.servers import free_port, running

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "In which port was the designer of the Orrin Dam born?"
# The first run loads the embedder inside the server (tens of seconds on a cold CPU).
RUN_DEADLINE = 240.0


@pytest.fixture(scope="module")
def server(tmp_path_factory, sample_index):
    """`langgraph dev` on a free loopback port, started from the repo root; yields url and log."""
    port = free_port()
    langgraph = str(Path(sys.executable).with_name("langgraph"))
    cmd = [
        langgraph,
        "dev",
        "--config",
        str(ROOT / "langgraph.json"),
        "--no-browser",
        # Other files may change while the tests run: a hot reload would drop the run.
        "--no-reload",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    log_path = tmp_path_factory.mktemp("server-log") / "langgraph-dev.log"
    with open(log_path, "w") as log, ExitStack() as stack:
        # The environment and working directory only matter while the process starts.
        with pytest.MonkeyPatch.context() as mp:
            mp.chdir(ROOT)
            mp.setenv("LANGGRAPH_CLI_NO_ANALYTICS", "1")
            mp.setenv("LANGSMITH_TRACING", "false")
            mp.setenv("HF_HUB_OFFLINE", "1")
            mp.setenv("ANONYMIZED_TELEMETRY", "False")
            try:
                stack.enter_context(
                    running(cmd, f"http://127.0.0.1:{port}/ok", timeout=120, log=log)
                )
            except (RuntimeError, TimeoutError) as exc:
                log.flush()
                raise RuntimeError(f"{exc}\n{tail(log_path)}") from exc
        yield SimpleNamespace(url=f"http://127.0.0.1:{port}", log=log_path)


def tail(path: Path, chars: int = 4000) -> str:
    return path.read_text(errors="replace")[-chars:]


def test_streams_plan_hops_and_answer_tokens_over_the_api(server, sample_index):
    client = get_sync_client(
        url=server.url, timeout=httpx.Timeout(connect=10.0, read=120.0, write=10.0, pool=10.0)
    )
    thread = client.threads.create()
    context = {
        "plan_model": "fake",
        "hop_model": "fake",
        "compose_model": "fake",
        "index_path": str(sample_index),
    }
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
