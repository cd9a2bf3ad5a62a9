"""What the CLI prints while it works: streamed answers and their progress, indexing progress.

Kept apart from the commands: `resin ask`, `chat` and `demo` (and the tests) stream a run through
the one `stream_answer`, the answer's tokens to stdout and a progress line per event to stderr.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from langgraph.types import Durability


class ProgressBar:
    """A tqdm bar (passages and passages/s) driven by the builder's (done, total, report) callback.

    `close` ends its line when a build stops short, so an error is printed on a line of its own.
    """

    def __init__(self, desc: str) -> None:
        self.desc = desc
        self.bar: Any = None
        self.started = 0.0

    def __call__(self, done: int, total: int, report: Any) -> None:
        """Draw `done` of `total` passages and the report's figures so far."""
        import time

        from tqdm import tqdm

        if self.bar is None:
            self.bar = tqdm(total=total, desc=self.desc, unit="passage", file=sys.stderr)
            self.started = time.monotonic()
        b = self.bar
        b.update(done - b.n)
        share = report.grounded_share
        tokens = report.prompt_tokens + report.completion_tokens
        b.set_postfix(
            units=report.units,
            grounded=f"{100 * share:.0f}%" if share is not None else "-",
            tokens=tokens,
            tok_s=round(tokens / max(time.monotonic() - self.started, 1e-3)),
            in_flight=report.in_flight,
            refresh=False,
        )
        if done >= total:
            b.close()

    def close(self) -> None:
        """End the bar's line (a no-op once it is closed, or if it never started)."""
        if self.bar is not None:
            self.bar.close()


def stream_answer(
    graph: Any,
    inputs: dict[str, Any],
    ctx: Any,
    config: dict[str, Any] | None = None,
    show_progress: bool = True,
    out: Any = None,
    durability: Durability | None = None,
) -> dict[str, Any]:
    """Stream a run: the answer message to `out` (stdout), progress to stderr.

    `durability` is LangGraph's: "sync" writes each checkpoint before the next step runs.

    Warnings (a failing plan model) go to stderr even when progress is not shown. Returns the final
    state with `timings`: seconds per stage, to the first answer token and in all.
    """
    from resin.agent.trace import StageClock, rewritten

    out = out or sys.stdout
    final: dict[str, Any] = {}
    hops = 0
    clock = StageClock()
    for mode, payload in graph.stream(
        inputs,
        config=config,
        context=ctx,
        stream_mode=["messages", "custom", "updates", "values"],
        durability=durability,
    ):
        clock.part(mode, payload)
        if mode == "messages":
            chunk, meta = payload
            if meta.get("langgraph_node") == "compose" and chunk.content:
                print(chunk.content, end="", file=out, flush=True)
        elif mode == "custom" and "event" in payload:  # not the chat's UI messages
            event = payload["event"]
            # a structural plan grows while it runs: the count said is the count so far
            hops = len(payload["hops"]) if event == "plan" else hops + payload.get("added", 0)
            if event == "warning":
                print(f"warning: {payload['message']}", file=sys.stderr, flush=True)
            elif show_progress:
                print(_progress_line(payload, hops), file=sys.stderr, flush=True)
            elif event == "plan" and rewritten(payload):  # how a follow-up was read, in chat
                print(f"(read as: {payload['question']})", file=sys.stderr, flush=True)
        elif mode == "values":
            final = payload
    print(file=out)
    return {**final, "timings": clock.seconds()}


def _progress_line(event: dict[str, Any], hops: int) -> str:
    """One stderr line per progress event; `hops` is the plan's size so far."""
    from resin.agent.trace import rewritten

    kind = event.get("event")
    if kind == "plan":
        asked = f" (follow-up read as: {event['question']})" if rewritten(event) else ""
        return f"· plan, {hops} hop(s), {event['seconds']:.2f} s: {event['reason']}{asked}"
    if kind == "hop":
        # a structural hop says what it gathered, a hop of its own question also its answer,
        # a computed hop only its answer
        added = event.get("added")
        grown = f"; {added} bridge hop(s) added, {hops} in all" if added else ""
        found = f" → {event['answer']}" if event.get("answer") else ""
        gathered = (
            f": {event['units']} units, {event['passages']} passages, {event['chains']} chains,"
            if "units" in event
            else ","
        )
        return (
            f"· hop {event['hop']} {event['status']}{found}{gathered} "
            f"{event['seconds']:.2f} s{grown}"
        )
    if kind == "composing":
        return f"· answering from {event['evidence']} pieces of evidence"
    if kind == "answer":
        notes = "; ".join(event.get("notes") or [])
        model = event.get("model_seconds")
        took = f"{event['seconds']:.2f} s" + (f", model {model:.2f} s" if model is not None else "")
        return f"· answer ({event['mode']}, {len(event['candidates'])} candidates, {took})" + (
            f": {notes}" if notes else ""
        )
    return f"· {event}"


def last_turns(messages: list[Any], turns: int = 3) -> str:
    """A resumed thread's last turns: each question and the first line of its answer."""
    from resin.agent.nodes.common import first_line

    lines = [
        f"{'you' if m.type == 'human' else 'resin'}> {first_line(m.content)}" for m in messages
    ]
    shown = lines[-2 * turns :]
    skipped = len(lines) - len(shown)
    return "\n".join([f"({skipped} earlier messages)"] * bool(skipped) + shown)
