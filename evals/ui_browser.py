"""Chromium, driven by Playwright, asking resin a question through agent-chat-ui; the report.

Playwright is never imported here: `resin.evals.ui_check` hands in the browser it launched.
agent-chat-ui renders the `resin_trace` component inside a shadow root, so the page is read
with a script that walks shadow roots (Playwright's own CSS locators pierce them too).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from resin.agent.brief import Brief
from resin.evals.provenance import format_header

# A hop's data-status words while it is still waiting or being read: none may be left once the
# run has finished (the contract leaves the other words to the component).
RUNNING_STATUSES = {"", "pending", "reading", "running", "waiting"}
POLL_SECONDS = 0.1
# How long after the run has finished the page may still be loading the trace's component.
TRACE_GRACE_SECONDS = 5.0

# Everything the checks read from the page, in one call: the last answer's text (agent-chat-ui's
# AssistantMessage is `div.group.mr-auto`, its markdown `div.py-1`), whether the run is still
# going (a Cancel button), and the last `resin-trace` with its hops, chains, notes and sources.
_SNAPSHOT_JS = """
() => {
  const deep = (root, sel) => {
    const out = [...root.querySelectorAll(sel)];
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) out.push(...deep(el.shadowRoot, sel));
    return out;
  };
  const flat = (el) => (el.textContent || '').replace(/\\s+/g, ' ').trim();
  const answers = document.querySelectorAll('div.group.mr-auto');
  const last = answers[answers.length - 1];
  const md = last ? last.querySelector('.py-1') : null;
  const traces = deep(document, '[data-testid="resin-trace"]');
  const trace = traces[traces.length - 1];
  const inTrace = (sel) => trace ? [...trace.querySelectorAll(sel)] : [];
  return {
    text: md ? md.innerText.trim() : '',
    citations: md ? [...md.querySelectorAll('a[href]')].map(a => ({text: flat(a), href: a.href})) : [],
    loading: [...document.querySelectorAll('button')].some(b => b.innerText.trim() === 'Cancel'),
    traces: traces.length,
    hops: inTrace('[data-testid="resin-hop"]')
      .map(e => ({status: e.getAttribute('data-status'), text: flat(e)})),
    chains: inTrace('[data-testid="resin-chain"]').length,
    notes: inTrace('[data-testid="resin-note"]').map(flat),
    sources: inTrace('[data-testid="resin-source"]').map(e => {
      const a = e.matches('a[href]') ? e : e.querySelector('a[href]');
      return {text: flat(e), href: a ? a.href : null};
    }),
  };
}
"""


@dataclass
class Check:
    """One pass/fail line of the report."""

    name: str
    ok: bool
    detail: str


@dataclass
class Expected:
    """What the plain client's run of the same question says the page should show."""

    question: str
    brief: Brief
    chains: int
    answers: list[str]
    server_url: str


@dataclass
class BrowserRun:
    """Seconds from pressing Enter to each sight, the page's last view, screenshots, errors."""

    timings: dict[str, float | None] = field(default_factory=dict)
    progress: list[str] = field(default_factory=list)
    snapshot: dict[str, Any] = field(default_factory=dict)
    screenshots: list[Path] = field(default_factory=list)
    console: list[str] = field(default_factory=list)


def flat(text: str) -> str:
    """`text` with runs of whitespace made one space, for comparisons with the page's text."""
    return " ".join(text.split())


def ask_in_chat_ui(
    browser: Any, page_url: str, question: str, shots: Path, tag: str, timeout: float
) -> BrowserRun:
    """Type `question` into a fresh agent-chat-ui page and watch the run until it ends."""
    run = BrowserRun()
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.on("console", lambda m: run.console.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: run.console.append(str(e)))
    page.goto(page_url)
    box = page.get_by_placeholder("Type your message...")
    box.wait_for(timeout=60_000)
    box.fill(question)
    start = time.monotonic()
    box.press("Enter")
    run.snapshot = _watch(page, run, start, timeout, shots / f"{tag}-first-hop.png")
    run.screenshots.append(_shoot(page, shots / f"{tag}-answer.png"))
    page.close()
    return run


def judge(browser: Any, run: BrowserRun, expected: Expected, shots: Path, tag: str) -> list[Check]:
    """The page's last view against the plain client's run, and the first source's link."""
    snap = run.snapshot
    checks = _answer_checks(snap, run.timings, expected) + _trace_checks(snap, expected)
    if snap["traces"] and snap["sources"]:
        checks.append(_passage_check(browser, snap["sources"][0], expected, shots, tag, run))
    return checks


def _watch(page: Any, run: BrowserRun, start: float, timeout: float, hop_shot: Path) -> Any:
    """Poll the page until the run ends and its trace shows; note when hops and text appear.

    Polling stops at `timeout`, or `TRACE_GRACE_SECONDS` after the run ended with no trace.
    """
    seen: dict[str, float | None] = dict.fromkeys(
        ("first hop shown", "first answer text", "run finished")
    )
    last_progress = None
    snap = page.evaluate(_SNAPSHOT_JS)
    while time.monotonic() - start < timeout:
        snap = page.evaluate(_SNAPSHOT_JS)
        now = round(time.monotonic() - start, 2)
        if snap["hops"] and seen["first hop shown"] is None:
            seen["first hop shown"] = now
            # the window only: a full-page capture takes long enough to miss the run's middle
            run.screenshots.append(_shoot(page, hop_shot, full_page=False))
        if snap["text"] and seen["first answer text"] is None:
            seen["first answer text"] = now
        progress = "; ".join(f"hop {i + 1} {h['status']}" for i, h in enumerate(snap["hops"]))
        if progress and progress != last_progress:
            run.progress.append(f"{now:.2f}s: {progress}")
            last_progress = progress
        if snap["text"] and not snap["loading"]:
            finished = seen["run finished"] = seen["run finished"] or now
            # the component's script loads on its first use: a trace may show just after the text
            if snap["traces"] or now - finished > TRACE_GRACE_SECONDS:
                break
        time.sleep(POLL_SECONDS)
    run.timings.update(seen)
    return snap


def _shoot(page: Any, path: Path, full_page: bool = True) -> Path:
    page.screenshot(path=str(path), full_page=full_page)
    return path


def _answer_checks(snap: Any, timings: dict[str, float | None], expected: Expected) -> list[Check]:
    finished = timings.get("run finished") is not None
    text = flat(snap["text"])
    answer = expected.brief["answer"]
    right = any(a.lower() in text.lower() for a in expected.answers)
    return [
        Check(
            "run finished in the page", finished, "Send button back" if finished else "timed out"
        ),
        Check(
            "answer shown in the chat",
            bool(answer) and answer in text,
            f"page: {text[:80]!r}; server: {answer!r}",
        ),
        Check("answer is a sample answer", right, f"expected one of {expected.answers}"),
        _citation_check(snap["citations"], expected),
    ]


def _citation_check(links: list[dict[str, str]], expected: Expected) -> Check:
    """Each `[n]` of the answer's text, after a sentence and in Sources, links to its passage."""
    sources = expected.brief["sources"]
    server = _origin(expected.server_url)
    bad = [
        f"{link['text']!r} -> {link['href']}"
        for link in links
        if link["text"] not in [f"[{i}]" for i in range(1, len(sources) + 1)]
        or _origin(link["href"]) != server
        or not urlsplit(link["href"]).path.startswith("/sources/")
    ]
    return Check(
        "answer's citations link to their passages",
        len(links) == 2 * len(sources) and not bad,
        f"page {len(links)} link(s), server {len(sources)} source(s) (each cited twice); "
        + (_listed(bad) or f"all to {server}/sources/"),
    )


def _trace_checks(snap: Any, expected: Expected) -> list[Check]:
    """The `resin_trace` contract: one trace, hops with statuses and texts, chains, notes, sources."""
    brief = expected.brief
    if not snap["traces"]:
        return [
            Check(
                "trace shown", False, "no resin-trace element: the checks of its parts did not run"
            )
        ]
    checks = [Check("trace shown", True, f"{snap['traces']} resin-trace element(s)")]
    hops = snap["hops"]
    checks.append(
        Check(
            "one resin-hop per hop",
            len(hops) == len(brief["hops"]),
            f"page {len(hops)}, plan {len(brief['hops'])}",
        )
    )
    pairs = list(zip(hops, brief["hops"], strict=False))
    bad_status = [
        f"hop {want['id']}: {got['status']!r} after the run (server {want['status']!r})"
        for got, want in pairs
        if (got["status"] or "").lower() in RUNNING_STATUSES
    ]
    none = "" if pairs else "no resin-hop shown"
    statuses = ", ".join(str(got["status"]) for got, _ in pairs)
    checks.append(
        Check(
            "hop data-status",
            bool(pairs) and not bad_status,
            none or _listed(bad_status) or f"final: {statuses}",
        )
    )
    bad_text = [
        f"hop {want['id']} lacks {part!r}"
        for got, want in pairs
        for part in (want["question"], want["answer"])
        if part and flat(part).rstrip("…") not in got["text"]
    ]
    checks.append(
        Check(
            "hop question and answer",
            bool(pairs) and not bad_text,
            none or _listed(bad_text) or f"{len(pairs)} hop(s) show the server's texts",
        )
    )
    want_chain = expected.chains > 0
    checks.append(
        Check(
            "resin-chain when there is a chain",
            (snap["chains"] > 0) == want_chain,
            f"page {snap['chains']}, server chains {expected.chains}",
        )
    )
    unshown = [n for n in brief["notes"] if not any(flat(n) in shown for shown in snap["notes"])]
    checks.append(
        Check(
            "resin-note per note",
            not unshown,
            f"page {len(snap['notes'])}, server {len(brief['notes'])}; not shown: "
            + (_listed([repr(n) for n in unshown]) or "none"),
        )
    )
    sources = snap["sources"]
    server = _origin(expected.server_url)
    bad_links = [
        f"source {i + 1}: {s['href'] or 'no <a href>'}"
        for i, s in enumerate(sources)
        if not s["href"] or _origin(s["href"]) != server
    ]
    checks.append(
        Check(
            "resin-source per source, linking to the server",
            len(sources) == len(brief["sources"]) and not bad_links,
            f"page {len(sources)}, server {len(brief['sources'])}; "
            + (_listed(bad_links) or f"links to {server}"),
        )
    )
    return checks


def _passage_check(
    browser: Any, source: Any, expected: Expected, shots: Path, tag: str, run: BrowserRun
) -> Check:
    """Open the first source's link: its page must <mark> that source's sentence."""
    name = "first source's passage page marks its sentence"
    if not source["href"]:
        return Check(name, False, "the source has no <a href>")
    sentence = flat(expected.brief["sources"][0]["sentence"]) if expected.brief["sources"] else ""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        response = page.goto(source["href"])
        status = response.status if response else 0
        run.screenshots.append(_shoot(page, shots / f"{tag}-passage.png"))
        marks = [flat(m) for m in page.locator("mark").all_text_contents()]
    finally:
        page.close()
    cut = sentence.endswith("…")  # the brief clips a long sentence
    marked = any(m == sentence or (cut and m.startswith(sentence[:-1])) for m in marks)
    ok = status == 200 and bool(sentence) and marked
    return Check(name, ok, f"HTTP {status}; <mark>: {marks[:2]!r}; source: {sentence[:80]!r}")


def _origin(url: str) -> str:
    """Scheme, host and port of `url`, every loopback name written 127.0.0.1."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    host = "127.0.0.1" if host in ("localhost", "::1") else host
    return f"{parts.scheme}://{host}:{parts.port}"


def _listed(problems: list[str]) -> str:
    return "; ".join(problems[:4]) + (f" (+{len(problems) - 4} more)" if len(problems) > 4 else "")


def write_report(path: Path, head: dict[str, str], runs: list[dict[str, Any]]) -> bool:
    """The markdown report; True when every check passed."""
    lines = ["# agent-chat-ui browser check (issue #42)", "", *format_header(head), ""]
    lines += [
        f"- {k}: {v}" for k, v in head.items() if k not in ("date", "commit", "machine", "command")
    ]
    lines += ["", "## Timings", ""]
    lines.append(
        f"Seconds from sending the question; the page is read every {POLL_SECONDS} s. The first "
        "question after the server started waits for it to load its models."
    )
    lines += [
        "",
        "| question | sdk first chunk | sdk finished | first hop shown | first answer text | run finished |",
    ]
    lines += ["|---|---:|---:|---:|---:|---:|"]
    for run in runs:
        sdk, page = run["sdk"], run["browser"].timings
        cells = [
            sdk["first chunk"],
            sdk["finished"],
            *(page.get(k) for k in ("first hop shown", "first answer text", "run finished")),
        ]
        lines.append(
            f"| {run['id']} | " + " | ".join("—" if c is None else f"{c:.2f}" for c in cells) + " |"
        )
    lines += ["", "## Checks", "", "| question | check | result | detail |", "|---|---|---|---|"]
    every_ok = True
    for run in runs:
        for check in run["checks"]:
            every_ok &= check.ok
            detail = check.detail.replace("|", "\\|")
            lines.append(
                f"| {run['id']} | {check.name} | {'pass' if check.ok else 'FAIL'} | {detail} |"
            )
    lines += ["", "## Per question", ""]
    for run in runs:
        browser: BrowserRun = run["browser"]
        lines += [f"### {run['id']}: {run['question']}", ""]
        lines.append(f"- answer (server): {run['answer']!r}")
        lines.append(f"- hops shown over time: {' | '.join(browser.progress) or 'none'}")
        lines.append(f"- screenshots: {', '.join(f'`{s}`' for s in browser.screenshots)}")
        errors = sorted(set(browser.console))[:5]
        lines.append(f"- browser console errors: {' / '.join(e[:160] for e in errors) or 'none'}")
        lines.append("")
    lines.append(f"Result: {'every check passed' if every_ok else 'FAILED'}.")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    return every_ok
