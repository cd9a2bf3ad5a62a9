r"""Seconds from sending a chat message to each thing the chat shows: the trace, a hop, the answer.

    python -m resin.evals.bench_chat_ui --out evals/results/chat_ui_embedded.md

Indexes the sample corpus (agent/sample/docs, `resin index`, parser units) unless --index
already holds it, starts `langgraph dev` from this checkout's root with langgraph.json as it is
(the trace component bundled; RESIN_INDEX and RESIN_MODEL set, everything else default), waits
for the component, runs one question outside the sample (a warm server), then sends each sample
question as agent-chat-ui does (a human message of text blocks; stream modes values,
messages-tuple and custom) on a new thread. Per question: seconds to the server's first event
(the run has started), to the first UI message (the plan), to the first hop resolved, to the
answer's text, and to the end of the run. Target (issue 42): the first UI message within 1 s of
sending. `--pause` waits a random while between questions, as a person would: the server's
queue looks for runs on a fixed beat, which a question sent right as the last run ends always
hits at its worst (docs/chat-ui.md).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from statistics import median
from typing import Any

import httpx
from langgraph_sdk import get_sync_client

from resin.agent.llm import DEFAULT_CHAT_SPEC
from resin.evals.provenance import REPO, command_of
from resin.evals.report import machine_settings, publish
from resin.testing.processes import free_port, running

SAMPLE = REPO / "agent" / "sample"
WARM_UP = "Who designed the Orrin Dam?"
FINAL = {"answered", "resolved", "not_found", "skipped"}
MEASURES = ("run started", "first UI message", "first hop resolved", "answer text", "total")


def chat_turn(client: Any, question: str) -> dict[str, Any]:
    """One question on a new thread; seconds from sending to each measure, and the answer."""
    thread = client.threads.create()["thread_id"]
    seen: dict[str, float] = {}
    answer_id = ""
    started = time.perf_counter()
    for part in client.runs.stream(
        thread,
        "resin",
        input={"messages": [{"type": "human", "content": [{"type": "text", "text": question}]}]},
        stream_mode=["values", "messages-tuple", "custom"],
    ):
        now = time.perf_counter() - started
        if part.event.startswith("error"):
            raise RuntimeError(f"the run failed: {part.data}")
        seen.setdefault("run started", now)  # the server's first event: its run id
        if part.event == "custom" and part.data.get("type") == "ui":
            seen.setdefault("first UI message", now)
            answer_id = part.data["metadata"]["message_id"]
            props = part.data["props"].values()
            if any(isinstance(p, dict) and p.get("status") in FINAL for p in props):
                seen.setdefault("first hop resolved", now)
        elif part.event == "messages" and part.data[0]["id"] == answer_id:
            if part.data[0].get("content"):
                seen.setdefault("answer text", now)
    seen["total"] = time.perf_counter() - started
    values = client.threads.get_state(thread)["values"]
    return {"question": question, "seconds": seen, "answer": values.get("answer", "")}


def table(rows: list[dict[str, Any]], settings: dict[str, str]) -> str:
    """Settings, then p50 and max seconds per measure, then one line per question."""
    lines = [f"- {k}: {v}" for k, v in settings.items()]
    lines += ["", "| measure | p50 s | max s |", "|---|---:|---:|"]
    for measure in MEASURES:
        values = [r["seconds"][measure] for r in rows if measure in r["seconds"]]
        cells = f"{median(values):.2f} | {max(values):.2f}" if values else "— | —"
        lines.append(f"| {measure} | {cells} |")
    within = sum(r["seconds"].get("first UI message", 99.0) <= 1.0 for r in rows)
    lines += ["", f"First UI message within 1 s: {within} of {len(rows)} questions.", ""]
    lines += [
        "| question | first UI s | answer text s | total s | answer |",
        "|---|---:|---:|---:|---|",
    ]
    for r in rows:
        s = r["seconds"]
        shown = [f"{s[m]:.2f}" if m in s else "—" for m in ("first UI message", "answer text")]
        lines.append(
            f"| {r['question']} | {' | '.join(shown)} | {s['total']:.2f} | {r['answer']} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", type=Path, default=REPO / "evals/runs/chat_ui/index")
    parser.add_argument("--model", default=DEFAULT_CHAT_SPEC, help="RESIN_MODEL of the server")
    parser.add_argument(
        "--pause",
        type=float,
        default=0.0,
        help="wait up to this many seconds (random, seed 0) between a run's end and the next "
        "question, as a person reading the answer does (default 0: back to back)",
    )
    parser.add_argument("--out", type=Path, help="write the markdown report here")
    args = parser.parse_args()
    index = args.index.resolve()
    bin_dir = Path(sys.executable).parent
    if not (index / "manifest.json").exists():
        subprocess.run(
            [str(bin_dir / "resin"), "index", str(SAMPLE / "docs"), "--index", str(index)],
            check=True,
        )
    questions = [json.loads(line)["question"] for line in (SAMPLE / "questions.jsonl").open()]
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    os.chdir(REPO)  # langgraph.json gives the component's path from the working directory
    os.environ.update(
        RESIN_INDEX=str(index),
        RESIN_MODEL=args.model,
        PYTHONPATH=str(REPO),
        LANGSMITH_TRACING="false",
    )
    cmd = [str(bin_dir / "langgraph"), "dev", "--no-browser", "--no-reload"]
    cmd += ["--host", "127.0.0.1", "--port", str(port)]
    log_path = index.parent / "langgraph-dev.log"
    with open(log_path, "w") as log, running(cmd, f"{url}/ok", timeout=180, log=log):
        deadline = time.monotonic() + 300
        while httpx.post(f"{url}/ui/resin", json={"name": "resin_trace"}).status_code != 200:
            if time.monotonic() > deadline:
                raise RuntimeError(f"the component was not bundled: see {log_path}")
            time.sleep(1)
        client = get_sync_client(url=url, timeout=600.0)
        chat_turn(client, WARM_UP)
        load_before = os.getloadavg()[0]
        rows = []
        pauses = random.Random(0)
        for i, question in enumerate(questions, 1):
            time.sleep(pauses.uniform(0, args.pause))
            rows.append(chat_turn(client, question))
            print(f"[{i}/{len(questions)}] {rows[-1]['seconds']}", file=sys.stderr, flush=True)
    settings = {
        "data": f"agent/sample: {len(questions)} questions, the 14 sample documents indexed "
        "with `resin index` (parser units)",
        "server": f"`langgraph dev` from the checkout's root, RESIN_MODEL={args.model}, other "
        "settings default; one warm-up question first",
        "pause": f"up to {args.pause:g} s (random) between a run's end and the next question",
        **machine_settings(load_before),
    }
    publish(table(rows, settings), rows, args.out, None, command_of("resin.evals.bench_chat_ui"))


if __name__ == "__main__":
    main()
