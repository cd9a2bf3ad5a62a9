"""Agent overhead per question, excluding model time, on large fake-extracted indexes.

    python -m evals.bench_agent --passages 10000 --questions 50
    python -m evals.bench_agent --prompt-tokens        # two-hop sample question, embedded model

The first form builds (once, cached under --workdir) an index of N synthetic passages with the
fake extractor, then runs questions through the graph with the instant `fake` model for every
step and reports per-question latency p50/p95 (retrieval, traversal, state) and peak memory.
Targets: p50 ≤ 100 ms at 10,000 passages, ≤ 300 ms at 100,000.

The second form runs the two-hop sample question with the embedded model and sums the prompt
tokens of every model call (plan, hop bridges, compose). Target: ≤ 2,500.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import time
from pathlib import Path
from typing import Any

import numpy as np

from agent.context import Context
from agent.graph import graph
from agent.models import ScriptedChatModel, heuristic_reply, make_embedder
from evals.bench_build import corpus
from indexes.build import Builder, Index, IndexConfig


def build_index(path: Path, passages: int) -> None:
    """Build the fake-extracted index once; a rerun over the same corpus is a no-op."""
    index = Index(IndexConfig(path=path), make_embedder())
    try:
        Builder(index, ScriptedChatModel(responder=heuristic_reply), batch_passages=256).run(
            corpus(passages)
        )
    finally:
        index.close()


def questions(n: int, passages: int, seed: int = 1) -> list[str]:
    """Bridge-style questions over the synthetic corpus's entities."""
    rng = random.Random(seed)
    docs = corpus(passages)
    out = []
    for doc in rng.sample(docs, n):
        first = doc.text.split(".")[0].replace("The ", "", 1)
        out.append(f"Who repaired the structure that {first.lower()}?")
    return out


def overhead(path: Path, passages: int, n: int) -> dict[str, Any]:
    ctx = Context(plan_model="fake", hop_model="fake", compose_model="fake", index_path=str(path))
    asked = questions(n + 3, passages)
    for question in asked[:3]:  # warm-up: embedder load, BM25 build, Chroma caches
        graph.invoke({"question": question}, context=ctx)
    times = []
    for question in asked[3:]:
        start = time.perf_counter()
        graph.invoke({"question": question}, context=ctx)
        times.append(1000 * (time.perf_counter() - start))
    return {
        "passages": passages,
        "questions": n,
        "p50_ms": round(float(np.percentile(times, 50)), 1),
        "p95_ms": round(float(np.percentile(times, 95)), 1),
        "mean_ms": round(float(np.mean(times)), 1),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "note": "fake model for plan, hops and compose: what remains is retrieval, traversal, state",
    }


def prompt_tokens(index_path: Path) -> dict[str, Any]:
    from agent.cli import SAMPLE_DIR
    from indexes.documents import load_documents

    index = Index(IndexConfig(path=index_path), make_embedder())
    docs, _ = load_documents([SAMPLE_DIR / "docs"])
    Builder(index, None).run(docs)
    index.close()
    question = "In which port was the designer of the Orrin Dam born?"
    state = graph.invoke({"question": question}, context=Context(index_path=str(index_path)))
    usage = state.get("usage") or []
    return {
        "question": question,
        "calls": usage,
        "prompt_tokens_total": sum(int(u["prompt_tokens"]) for u in usage),
        "completion_tokens_total": sum(int(u["completion_tokens"]) for u in usage),
        "hops": len(state.get("plan") or []),
        "answer": state.get("answer"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--passages", type=int, default=10_000)
    parser.add_argument("--questions", type=int, default=50)
    parser.add_argument("--workdir", type=Path, default=Path("evals/runs/bench"))
    parser.add_argument("--prompt-tokens", action="store_true")
    args = parser.parse_args()
    if args.prompt_tokens:
        print(json.dumps(prompt_tokens(args.workdir / "sample-structural"), indent=2))
        return
    path = args.workdir / f"fake-{args.passages}"
    start = time.perf_counter()
    build_index(path, args.passages)
    built = round(time.perf_counter() - start, 1)
    result = overhead(path, args.passages, args.questions)
    result["index_build_or_check_seconds"] = built
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
