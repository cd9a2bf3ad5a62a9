"""Agent overhead per question, excluding model time, on large fake-extracted indexes.

    python -m resin.evals.bench_agent --passages 10000 --questions 50
    python -m resin.evals.bench_agent --passages 100000 --vectors hashed
    python -m resin.evals.bench_agent --prompt-tokens        # two-hop sample question, embedded model

The first form builds (once, cached under --workdir) an index of N synthetic passages with the
fake extractor, then runs questions through the graph with the instant `fake` model for every
step and reports per-question latency p50/p95 (retrieval, traversal, state) and peak memory.
Targets: p50 ≤ 100 ms at 10,000 passages, ≤ 300 ms at 100,000.

`--vectors hashed` builds with feature-hashed bag-of-words vectors instead of MiniLM, because
MiniLM on 2 cores needs about an hour for the 500,000 texts of a 100,000-passage index. The
questions still pay MiniLM's real query-embedding cost (every query is embedded by MiniLM and the
result discarded) and Chroma searches the same number of 384-d vectors, so the overhead figure
stays honest; only the ranking differs (lexical instead of semantic).

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

from resin.agent.context import Context
from resin.agent.graph import graph
from resin.agent.resources import get_index
from resin.evals.bench_build import corpus
from resin.evals.hash_embedder import HashEmbedder
from resin.evals.scripted import FAKE_SPEC, register_fake
from resin.indexes.build import Builder
from resin.indexes.embeddings import make_embedder
from resin.indexes.index import Index
from resin.indexes.opening import open_index
from resin.testing import chat


class HashedEmbedder(HashEmbedder):
    """Hashed vectors that, at question time, also pay MiniLM's cost.

    `charge_queries` is switched on after the build, so every query is embedded by MiniLM too
    (the result discarded) and the overhead measured includes the real query-embedding time.
    """

    name = "bench-hashed-bow-384"

    def __init__(self) -> None:
        self.charge_queries = False

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """The hashed vectors, after MiniLM embedded the texts too when queries are charged."""
        if self.charge_queries:
            make_embedder().embed_documents(texts)
        return super().embed_documents(texts)


def open_bench_index(path: Path, vectors: str) -> tuple[Index, Context]:
    """The benchmark index and the context that reaches it (hashed vectors registered first)."""
    if vectors == "minilm":
        ctx = Context.one_model(FAKE_SPEC, index_path=str(path))
        return get_index(ctx), ctx
    ctx = Context.one_model(
        FAKE_SPEC,
        index_path=str(path),
        embedder=HashedEmbedder.name,
    )
    return get_index(ctx, embedder=HashedEmbedder()), ctx


def build_index(index: Index, passages: int) -> None:
    """Build the fake-extracted index once; a rerun over the same corpus is a no-op."""
    Builder(index, chat.rule_based(record=False), batch_passages=256).run(corpus(passages))


def questions(n: int, passages: int, seed: int = 1) -> list[str]:
    """Bridge-style questions over the synthetic corpus's entities."""
    rng = random.Random(seed)
    docs = corpus(passages)
    out = []
    for doc in rng.sample(docs, n):
        first = doc.text.split(".")[0].replace("The ", "", 1)
        out.append(f"Who repaired the structure that {first.lower()}?")
    return out


def overhead(ctx: Context, passages: int, n: int) -> dict[str, Any]:
    """Per-question latency of the graph with instant models: retrieval, traversal, state."""
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
    from resin.agent import SAMPLE_DIR
    from resin.indexes.reading import load_documents

    index = open_index(index_path, create=True)
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
    parser.add_argument(
        "--vectors",
        choices=["minilm", "hashed"],
        default="minilm",
        help="index vectors: MiniLM (default) or feature-hashed for very large indexes",
    )
    args = parser.parse_args()
    register_fake()
    if args.prompt_tokens:
        print(json.dumps(prompt_tokens(args.workdir / "sample-structural"), indent=2))
        return
    suffix = "" if args.vectors == "minilm" else f"-{args.vectors}"
    index, ctx = open_bench_index(args.workdir / f"fake-{args.passages}{suffix}", args.vectors)
    start = time.perf_counter()
    build_index(index, args.passages)
    built = round(time.perf_counter() - start, 1)
    if isinstance(index.embedder, HashedEmbedder):
        index.embedder.charge_queries = True
    result = overhead(ctx, args.passages, args.questions)
    result["vectors"] = args.vectors
    result["index_build_or_check_seconds"] = built
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
