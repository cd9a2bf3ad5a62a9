"""Concurrent load: many questions at once, several rounds; all complete, nothing leaks, memory flat.

tests/integration/test_server.py asks the same questions of a running server.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from resin.evals.checks.common import SAMPLE_DOCS, open_files, rss_mb


def concurrent_questions(count: int) -> list[str]:
    """`count` distinct questions about the sample corpus."""
    sample = [
        json.loads(line)["question"]
        for line in (SAMPLE_DOCS.parent / "questions.jsonl").read_text().splitlines()
        if line.strip()
    ]
    titles = [
        p.read_text().splitlines()[0].lstrip("# ").strip() for p in sorted(SAMPLE_DOCS.glob("*.md"))
    ]
    extra = [f"What does the text say about {t}?" for t in titles]
    extra += [f"Where is {t} and who is linked to it?" for t in titles]
    return list(dict.fromkeys(sample + extra))[:count]


def run_concurrently(
    index_path: Path, questions: list[str], spec: str, workers: int
) -> list[dict[str, Any]]:
    """Each question on its own thread; the graph's output state per question, in order."""
    from resin.agent.context import Context
    from resin.agent.graph import graph

    ctx = Context.one_model(spec, index_path=str(index_path))
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(lambda q: graph.invoke({"question": q}, context=ctx), questions))


def leaks(out: dict[str, Any], texts_of: Callable[[set[str]], str]) -> int:
    """Ways this answer shows another run's evidence (0 when it shows only its own)."""
    from resin.indexes.units import normalize

    held = {e.passage_id for e in out["evidence"]}
    problems = len(set(out["citations"]) - held)
    problems += sum(s["passage_id"] not in held for s in out["sources"])
    if out["sources"] and normalize(out["answer"]) not in normalize(texts_of(held)):
        problems += 1  # the short answer is not written in this run's own passages
    return problems


def check_concurrency(
    index_path: Path, figures: dict[str, Any], count: int = 20, rounds: int = 3
) -> None:
    """`count` questions at once, `rounds` times: all complete, no leaks, memory stable."""
    from resin.agent.context import Context
    from resin.agent.llm import registered_chat_model
    from resin.agent.resources import get_index
    from resin.testing import chat

    questions = concurrent_questions(count)
    index = get_index(Context(index_path=str(index_path)))

    def texts_of(pids: set[str]) -> str:
        return " ".join(p.text for p in index.passages(pids))

    with registered_chat_model("doctor-echo", chat.rule_based()):
        run_concurrently(index_path, questions[:4], "doctor-echo", 4)  # warm-up
        gc.collect()
        rss, fds = [rss_mb()], [open_files()]
        evidence_sets = set()
        for _ in range(rounds):
            figures["trials_run"] += 1
            outs = run_concurrently(index_path, questions, "doctor-echo", len(questions))
            for out in outs:
                figures["concurrent_questions_completed"] += bool(out.get("answer"))
                figures["evidence_leaks"] += leaks(out, texts_of)
                evidence_sets.add(frozenset(e.id for e in out["evidence"]))
            gc.collect()
            rss.append(rss_mb())
            fds.append(open_files())
    figures["rss_growth_mb"] = round(max(rss[1:]) - rss[1], 1)
    figures["open_files_growth"] = fds[-1] - fds[1]
    figures["distinct_evidence_sets"] = len(evidence_sets)
