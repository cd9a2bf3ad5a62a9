"""One system over the run's questions: answered, scored and appended in order, resumable.

results/<system>.jsonl and traces/<system>.jsonl grow a row per question as it finishes, so a
killed run loses only the questions in flight; a rerun skips the questions already scored.
"""

from __future__ import annotations

import json
import time
import traceback
from pathlib import Path
from typing import Any

from tqdm import tqdm

from resin.evals.data import Dataset, Question
from resin.evals.scoring import Corpus, score
from resin.evals.systems import SYSTEMS, Env, Outcome
from resin.indexes.inflight import ordered_map


def _done_ids(path: Path) -> set[str]:
    done: set[str] = set()
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                try:
                    row = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a line cut by a kill: the question is redone
                if not row.get("error"):
                    done.add(str(row["id"]))
    return done


def _append(path: Path, record: dict[str, Any]) -> None:
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
        fh.flush()


def run_system(
    name: str,
    env: Env,
    data: Dataset,
    corpus: Corpus,
    out: Path,
    progress: bool,
    concurrency: int = 1,
) -> int:
    """Answer and score every question not yet done; returns how many were run now.

    Up to `concurrency` questions are answered at once; rows are scored and written in order.
    """
    system = SYSTEMS[name]
    results, traces = out / "results" / f"{name}.jsonl", out / "traces" / f"{name}.jsonl"
    results.parent.mkdir(parents=True, exist_ok=True)
    traces.parent.mkdir(parents=True, exist_ok=True)
    done = _done_ids(results)
    todo = [q for q in data.questions if q.id not in done]

    def answer(q: Question) -> tuple[Outcome, str, float]:
        start = time.perf_counter()
        error = ""
        try:
            outcome = system.run(env, q)
        except Exception as exc:  # noqa: BLE001 - one failed question must not end the run
            outcome = Outcome(answer="", trace={"traceback": traceback.format_exc()[-3000:]})
            error = f"{type(exc).__name__}: {exc}"[:500]
        return outcome, error, time.perf_counter() - start

    answered = zip(todo, ordered_map(answer, todo, concurrency), strict=True)
    for q, (outcome, error, seconds) in tqdm(
        answered, total=len(todo), desc=f"{name:<18}", unit="q", disable=not progress
    ):
        row = {"id": q.id, "system": name, "answer": outcome.answer, "error": error}
        row.update(score(q, outcome, corpus, env.index.embedder, system.retrieves))
        row.update(
            prompt_tokens=outcome.prompt_tokens,
            completion_tokens=outcome.completion_tokens,
            latency=seconds,
            stages=outcome.stages,
            ranked=outcome.ranked[:10],
        )
        _append(
            traces,
            {
                "id": q.id,
                "system": name,
                "question": q.asked,
                "answers": q.answers,
                "gold": q.gold_keys,
                **outcome.trace,
                "context_passages": outcome.context_passages,
                "answer": outcome.answer,
                "error": error,
            },
        )
        _append(results, row)
    return len(todo)


def load_rows(out: Path, name: str, ids: set[str]) -> list[dict[str, Any]]:
    """The last row per question of one system, for the questions of this run."""
    path = out / "results" / f"{name}.jsonl"
    last: dict[str, dict[str, Any]] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            if str(row.get("id")) in ids:
                last[str(row["id"])] = row
    return list(last.values())
