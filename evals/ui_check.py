"""The browser check of issue #42: resin's hop-wise reading, shown in agent-chat-ui.

    python -m resin.evals.ui_check --chat-ui ~/agent-chat-ui       # starts both servers itself
    python -m resin.evals.ui_check --server-url http://127.0.0.1:2024 --chat-ui-url http://127.0.0.1:3000

Starts `langgraph dev` in a resin checkout (`--checkout`, default this one) over the bundled
sample corpus, indexed into `--shots` (or `--index`), and a built agent-chat-ui (`next start`),
each on a free loopback port, or takes their URLs. Each sample question goes to a plain
`langgraph-sdk` client that ignores UI messages (it must still get the answer, streamed as
message chunks, and its final state is what the page is checked against) and, after it (before
it with `--page-first`, so that the first question meets a cold server), is typed into
agent-chat-ui in headless Chromium, driven by Playwright: it times the first hop
shown and the finished answer, checks the `resin_trace` component's DOM (hops with statuses,
questions and answers, chains, notes, sources as links to the server) and opens the first source
link, whose page must <mark> the cited sentence. Screenshots go to `--shots`; the report, headed
by `resin.evals.provenance`, to `--out`. Exit 0 when every check passes, 1 when one fails, 2 when
Chromium, Playwright, langgraph-sdk or agent-chat-ui is missing. No test runs it: it needs a
browser and Node, and is run by hand (docs/serving.md, "Checking the chat UI").
"""

from __future__ import annotations

import argparse
import functools
import importlib.metadata
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from resin.agent import SAMPLE_DIR
from resin.agent.brief import brief
from resin.evals.provenance import REPO, command_of, provenance
from resin.evals.ui_browser import Check, Expected, write_report
from resin.testing.processes import free_port, running

GRAPH = "resin"
DEFAULT_SAMPLES = "q1,q6"
SERVER_ENV = {
    "LANGGRAPH_CLI_NO_ANALYTICS": "1",
    "LANGSMITH_TRACING": "false",
    "HF_HUB_OFFLINE": "1",
    "ANONYMIZED_TELEMETRY": "False",
}


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line; see the module's docstring."""
    p = argparse.ArgumentParser(
        prog="python -m resin.evals.ui_check",
        description="Check resin's hop-wise reading in agent-chat-ui, in headless Chromium.",
    )
    p.add_argument("--server-url", help="a running resin LangGraph server (default: start one)")
    p.add_argument("--checkout", type=Path, default=REPO, help="resin checkout to serve")
    p.add_argument("--index", type=Path, help="index to serve (default: the sample corpus, built)")
    p.add_argument("--model", help="RESIN_MODEL for the started server (default: embedded)")
    p.add_argument("--chat-ui", type=Path, help="an agent-chat-ui checkout, installed and built")
    p.add_argument("--chat-ui-url", help="a running agent-chat-ui (default: start --chat-ui)")
    p.add_argument("--chat-ui-commit", help="its commit (default: git rev-parse HEAD in --chat-ui)")
    p.add_argument("--chromium", help="the Chromium binary (default: chromium on PATH)")
    p.add_argument("--samples", default=DEFAULT_SAMPLES, help="ids in agent/sample/questions.jsonl")
    p.add_argument("--timeout", type=float, default=240.0, help="seconds a run may take")
    p.add_argument(
        "--page-first",
        action="store_true",
        help="ask each question in the page before the plain client (the first meets a cold server)",
    )
    p.add_argument(
        "--shots",
        type=Path,
        default=Path(tempfile.gettempdir()) / "resin-ui-check",
        help="screenshots, server logs and the built sample index",
    )
    p.add_argument("--out", type=Path, default=REPO / "evals" / "results" / "ui_check.md")
    return p.parse_args(argv)


def find_chromium(named: str | None) -> str | None:
    """The Chromium binary: `named` when it exists, else the first Chromium on PATH."""
    if named:
        return named if Path(named).is_file() else None
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if found := shutil.which(name):
            return found
    return None


def missing(args: argparse.Namespace) -> list[str]:
    """One line per missing prerequisite, naming it and how to get it."""
    problems = []
    if importlib.util.find_spec("playwright") is None:
        problems.append(
            "playwright is not importable: pip install '.[browser]' (its browsers are not "
            "needed), or put the site-packages of a venv holding it on PYTHONPATH"
        )
    if importlib.util.find_spec("langgraph_sdk") is None:
        problems.append("langgraph-sdk is not importable: pip install '.[server]'")
    if find_chromium(args.chromium) is None:
        problems.append(
            f"no Chromium at {args.chromium}"
            if args.chromium
            else "no chromium on PATH: apt-get install chromium, or pass --chromium PATH"
        )
    if not args.server_url and not Path(sys.executable).with_name("langgraph").is_file():
        problems.append("no langgraph CLI beside this Python: pip install '.[server]'")
    if not args.server_url and not (args.checkout / "langgraph.json").is_file():
        problems.append(f"--checkout {args.checkout}: no langgraph.json there")
    if args.chat_ui_url:
        return problems
    if args.chat_ui is None:
        problems.append("agent-chat-ui: pass --chat-ui DIR (a built checkout) or --chat-ui-url URL")
    elif not args.chat_ui.is_dir():
        problems.append(f"--chat-ui {args.chat_ui}: no such folder")
    elif not (args.chat_ui / ".next" / "BUILD_ID").is_file():
        problems.append(
            f"--chat-ui {args.chat_ui}: not built; run pnpm install && pnpm build there"
        )
    elif not (args.chat_ui / "node_modules" / ".bin" / "next").is_file():
        problems.append(f"--chat-ui {args.chat_ui}: no node_modules/.bin/next; run pnpm install")
    return problems


def _git(folder: Path, *args: str) -> str:
    """What `git -C folder ARGS` prints, stripped; empty when it fails."""
    try:
        done = subprocess.run(
            ["git", "-C", str(folder), *args],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip()


@contextmanager
def resin_server(args: argparse.Namespace, work: Path) -> Iterator[tuple[str, str]]:
    """`langgraph dev` of `--checkout`, from that folder, on a free port; its URL and UI bundle.

    It starts in the checkout because `langgraph dev` resolves the "ui" paths of langgraph.json
    and bundles them (`npx @langchain/langgraph-ui`) there, into `.langgraph_api/ui`. The server
    reads that bundle's `schemas.json` once, at the first `/ui` request, so the browser is let in
    only after the bundler has written it.
    """
    checkout = args.checkout.resolve()
    env = {**os.environ, **SERVER_ENV}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(checkout), env.get("PYTHONPATH")) if p)
    index = args.index.resolve() if args.index else work / "sample-index"
    if not args.index:
        build = [sys.executable, "-m", "resin.cli", "index", str(SAMPLE_DIR / "docs")]
        done = subprocess.run(
            [*build, "--index", str(index)], env=env, capture_output=True, text=True
        )
        if done.returncode:
            raise RuntimeError(f"indexing the sample corpus failed: {done.stderr.strip()[-300:]}")
    env["RESIN_INDEX"] = str(index)
    if args.model:
        env["RESIN_MODEL"] = args.model
    port = free_port()
    langgraph = str(Path(sys.executable).with_name("langgraph"))
    cmd = [langgraph, "dev", "--config", str(checkout / "langgraph.json"), "--no-browser"]
    cmd += ["--no-reload", "--host", "127.0.0.1", "--port", str(port)]
    log_path = work / "langgraph-dev.log"
    declared = json.loads((checkout / "langgraph.json").read_text()).get("ui") or {}
    with open(log_path, "w") as log, ExitStack() as stack:
        started = time.time()
        try:
            stack.enter_context(
                running(cmd, f"http://127.0.0.1:{port}/ok", 180, log, cwd=checkout, env=env)
            )
            bundle = _ui_bundle(checkout, declared, started, args.timeout)
        except (RuntimeError, TimeoutError) as exc:
            raise RuntimeError(f"langgraph dev: {exc}; log: {log_path}") from exc
        yield f"http://127.0.0.1:{port}", bundle


def _ui_bundle(checkout: Path, declared: dict[str, str], started: float, timeout: float) -> str:
    """Wait until the server's UI bundler has written this run's `schemas.json`; say when."""
    if not declared:
        return "langgraph.json declares no ui"
    schemas = checkout / ".langgraph_api" / "ui" / "schemas.json"
    while time.time() - started < timeout:
        if schemas.is_file() and schemas.stat().st_mtime >= started:
            return f"{', '.join(declared)} bundled {schemas.stat().st_mtime - started:.1f}s after start"
        time.sleep(0.5)
    raise TimeoutError(f"the UI bundler wrote no {schemas} within {timeout:.0f}s")


@contextmanager
def chat_ui(folder: Path, work: Path) -> Iterator[str]:
    """agent-chat-ui's production build (`next start`) on a free port."""
    port = free_port()
    cmd = [str(folder / "node_modules" / ".bin" / "next"), "start", "-p", str(port)]
    env = {**os.environ, "NEXT_TELEMETRY_DISABLED": "1"}
    with open(work / "agent-chat-ui.log", "w") as log:
        with running(cmd + ["-H", "127.0.0.1"], f"http://127.0.0.1:{port}/", 120, log, folder, env):
            yield f"http://127.0.0.1:{port}"


def plain_client(url: str, question: str, timeout: float) -> tuple[dict[str, Any], dict[str, Any]]:
    """Ask through langgraph-sdk as a client that knows no UI messages; the final state and facts.

    It streams the chat-UI way (the question as a human message; `messages-tuple`, `values` and
    `custom`) but ignores the `ui` state key and UI messages; it counts the custom events that
    are resin's progress events (an "event" key) and the others (UI messages share that stream).
    """
    from langgraph_sdk import get_sync_client

    client = get_sync_client(url=url, timeout=(10.0, timeout, 10.0, 10.0))
    thread = client.threads.create()["thread_id"]
    human: Any = [{"role": "user", "content": question}]
    start, first, chunks, custom = time.monotonic(), None, [], {"resin": 0, "other": 0}
    parts = client.runs.stream(
        thread,
        GRAPH,
        input={"messages": human},
        stream_mode=["messages-tuple", "values", "custom"],
    )
    for part in parts:
        if part.event == "error":
            raise RuntimeError(f"run failed: {part.data}")
        if part.event == "messages":
            chunk, _meta = part.data
            if text := ai_text(chunk):
                first = first if first is not None else round(time.monotonic() - start, 2)
                chunks.append(text)
        elif part.event == "custom":
            custom[
                "resin" if isinstance(part.data, dict) and "event" in part.data else "other"
            ] += 1
    finished = round(time.monotonic() - start, 2)
    values = client.threads.get_state(thread)["values"]
    state = values if isinstance(values, dict) else {}
    return state, {"first chunk": first, "finished": finished, "chunks": chunks, "custom": custom}


def ai_text(message: dict[str, Any]) -> str:
    """The text of an AI message or chunk as the API sends it ("ai", "AIMessageChunk"), else ""."""
    return _text(message.get("content")) if message.get("type", "").lower().startswith("ai") else ""


def _text(content: Any) -> str:
    """A message's text: a string, or the text of its content blocks."""
    if isinstance(content, str):
        return content
    blocks = content if isinstance(content, list) else []
    return "".join(b.get("text", "") for b in blocks if isinstance(b, dict))


def plain_checks(state: dict[str, Any], facts: dict[str, Any]) -> list[Check]:
    """A client that ignores UI messages still gets the answer: streamed, and in the thread."""
    answer = str(state.get("answer", ""))
    last = _text((state.get("messages") or [{}])[-1].get("content"))
    streamed = "".join(facts["chunks"])
    return [
        Check(
            "plain client: answer streamed as message chunks",
            bool(answer) and answer in streamed,
            f"{len(facts['chunks'])} chunk(s); custom events: {facts['custom']['resin']} resin, "
            f"{facts['custom']['other']} other (UI messages)",
        ),
        Check(
            "plain client: last message holds the answer",
            bool(answer) and answer in last,
            f"answer {answer!r}; ui messages in state: {len(state.get('ui') or [])}",
        ),
    ]


def samples(ids: str) -> list[dict[str, Any]]:
    """The sample questions (with their accepted answers) of comma-separated `ids`."""
    rows = [
        json.loads(line)
        for line in (SAMPLE_DIR / "questions.jsonl").read_text().splitlines()
        if line.strip()
    ]
    by_id = {row["id"]: row for row in rows}
    unknown = [i for i in ids.split(",") if i not in by_id]
    if unknown:
        raise SystemExit(
            f"--samples: no sample question {', '.join(unknown)} (ids: {', '.join(by_id)})"
        )
    return [by_id[i] for i in ids.split(",")]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the check; 0 when every check passed, 1 when one failed, 2 when a tool is missing."""
    args = parse_args(argv)
    questions = samples(args.samples)
    problems = missing(args)
    for problem in problems:
        print(f"ui_check: {problem}", file=sys.stderr)
    if problems:
        return 2
    args.shots.mkdir(parents=True, exist_ok=True)
    head = provenance(command_of("resin.evals.ui_check", argv))
    try:
        runs = check(args, questions, head)
    except (RuntimeError, TimeoutError, OSError) as exc:
        print(f"ui_check: {exc}", file=sys.stderr)
        return 1
    ok = write_report(args.out, head, runs)
    for run in runs:
        for item in run["checks"]:
            print(f"{run['id']} {'pass' if item.ok else 'FAIL'}  {item.name}: {item.detail}")
    print(f"report: {args.out}; screenshots: {args.shots}")
    return 0 if ok else 1


def check(
    args: argparse.Namespace, questions: list[dict[str, Any]], head: dict[str, str]
) -> list[dict[str, Any]]:
    """Start what is not running, ask each question by the SDK then in the page; add to `head`."""
    from playwright.sync_api import sync_playwright

    from resin.evals.ui_browser import ask_in_chat_ui, judge

    chromium = str(find_chromium(args.chromium))
    version = subprocess.run([chromium, "--version"], capture_output=True, text=True).stdout
    with ExitStack() as stack:
        if args.server_url:
            server, bundle = args.server_url, "not checked (--server-url)"
            head["server"] = server
        else:
            server, bundle = stack.enter_context(resin_server(args, args.shots.resolve()))
            served = _git(args.checkout, "rev-parse", "--short", "HEAD") or "unknown"
            if _git(args.checkout, "status", "--porcelain"):
                served += " + uncommitted changes"
            head["server"] = f"`langgraph dev` of {args.checkout.resolve()} at {served}"
        head["ui bundle"] = bundle
        chat = args.chat_ui_url or stack.enter_context(chat_ui(args.chat_ui, args.shots.resolve()))
        head["agent-chat-ui"] = args.chat_ui_commit or (
            (_git(args.chat_ui, "rev-parse", "HEAD") if args.chat_ui else "") or "unknown"
        )
        head["browser"] = (
            f"{version.strip()}, Playwright {importlib.metadata.version('playwright')}, headless"
        )
        page_url = f"{chat}/?{urlencode({'apiUrl': server, 'assistantId': GRAPH})}"
        head["order"] = (
            "each question in the page first, then by the plain client (--page-first)"
            if args.page_first
            else "each question by the plain client first, then in the page"
        )
        runs = []
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, headless=True)
            for row in questions:
                ask = functools.partial(
                    ask_in_chat_ui, browser, page_url, row["question"], args.shots, row["id"]
                )
                seen = ask(args.timeout) if args.page_first else None
                state, sdk = plain_client(server, row["question"], args.timeout)
                seen = seen or ask(args.timeout)
                # the trace draws a chain the question follows (one with `about`), as compose does
                chains = sum(
                    bool(c.get("about") and c.get("links")) for c in state.get("chains") or []
                )
                expected = Expected(row["question"], brief(state), chains, row["answers"], server)
                checks = plain_checks(state, sdk) + judge(
                    browser, seen, expected, args.shots, row["id"]
                )
                runs.append(
                    {
                        "id": row["id"],
                        "question": row["question"],
                        "answer": state.get("answer"),
                        "sdk": sdk,
                        "browser": seen,
                        "checks": checks,
                    }
                )
            browser.close()
    return runs


if __name__ == "__main__":
    raise SystemExit(main())
