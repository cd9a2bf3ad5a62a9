"""Requests in flight against a model server: build and eval speed-up with `--concurrency`.

    python -m resin.evals.bench_concurrency --passages 200 --latency 0.5 --slots 16 --levels 1,4,8,16
    python -m resin.evals.bench_concurrency --server URL --levels 1,2      # a real OpenAI-compatible one
    python -m resin.evals.bench_concurrency --model embedded --sample --levels 1,4   # in-process slots
    python -m resin.evals.bench_concurrency --eval --questions 40 --levels 1,8

The loopback server (`FaultyServer`) answers like the ``fake`` model after a fixed `latency`
per request on at most `slots` requests at once. Each build goes into a fresh index; the figures
are wall seconds, passages/s, the speed-up over the first level, the most requests in flight,
and whether the index holds exactly the units of the first level's build. `--sample` builds the
bundled sample corpus instead of `--passages` synthetic ones. `--eval` times the
answer stage of `resin eval` (system `dense`: one model call per question) instead.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from resin.agent import SAMPLE_DIR
from resin.agent.llm import make_chat_model
from resin.evals.bench_build import corpus
from resin.indexes.build import Builder
from resin.indexes.documents import Document
from resin.indexes.embeddings import make_embedder
from resin.indexes.maintenance import snapshot
from resin.indexes.opening import open_index
from resin.indexes.reading import load_documents


def build_levels(
    spec: str, docs: list[Document], levels: list[int], server: Any
) -> list[dict[str, Any]]:
    """One fresh build per concurrency level over the same corpus."""
    embedder = make_embedder()
    embedder.embed_documents([d.text for d in docs[:8]])  # warm the embedder outside the timing
    rows: list[dict[str, Any]] = []
    reference: list[str] | None = None
    with tempfile.TemporaryDirectory(prefix="resin-bench-conc-") as work:
        for level in levels:
            index = open_index(Path(work) / f"c{level}", embedder, create=True)
            if server is not None:
                server.peak_open = 0
            report = Builder(index, make_chat_model(spec), concurrency=level).run(docs)
            units = [r[0] for r in snapshot(index)["units"]]
            index.close()
            reference = reference if reference is not None else units
            rows.append(
                {
                    "concurrency": level,
                    "seconds": round(report.seconds, 2),
                    "passages_per_s": round(report.passages / report.seconds, 2),
                    "speedup": round(rows[0]["seconds"] / report.seconds, 2) if rows else 1.0,
                    "peak_in_flight": report.peak_in_flight,
                    "server_peak_open": server.peak_open if server is not None else None,
                    "model_calls": report.model_calls,
                    "failed": len(report.failed_passages),
                    "same_units_as_first": units == reference,
                    "units": len(units),
                }
            )
            print(json.dumps(rows[-1]), flush=True)
    return rows


def eval_levels(spec: str, questions: int, levels: list[int]) -> list[dict[str, Any]]:
    """`resin eval --systems dense` at each level; seconds of the answer stage alone."""
    import resin.evals.runner as runner

    timed: dict[str, float] = {}
    answer_all = runner.run_system

    def run_system(*args: Any, **kwargs: Any) -> int:
        started = time.perf_counter()
        done = answer_all(*args, **kwargs)
        timed["seconds"] = time.perf_counter() - started
        return done

    runner.run_system = run_system  # time the answer stage of an otherwise unchanged run
    docs = corpus(questions, seed=1)
    rng = random.Random(1)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="resin-bench-eval-") as work:
        data = Path(work) / "data.jsonl"
        with data.open("w", encoding="utf-8") as fh:
            for i, doc in enumerate(docs):
                other = docs[rng.randrange(len(docs))]
                record = {
                    "id": f"q{i}",
                    "question": f"What does the text say about the {doc.title}?",
                    "answers": [doc.title],
                    "paragraphs": [
                        {"title": d.title, "text": d.text, "is_supporting": d is doc}
                        for d in (doc, other)
                    ],
                }
                fh.write(json.dumps(record) + "\n")
        for level in levels:
            config = runner.RunConfig(
                data=str(data),
                out=f"{work}/out-{level}",
                index=f"{work}/index",
                systems=["dense"],
                model=spec,
                extract="none",
                progress=False,
                concurrency=level,
            )
            report = runner.run_eval(config)
            seconds = timed["seconds"]
            rows.append(
                {
                    "concurrency": level,
                    "questions": questions,
                    "seconds": round(seconds, 2),
                    "questions_per_s": round(questions / seconds, 2),
                    "errors": report["systems"]["dense"]["errors"],
                }
            )
            print(json.dumps(rows[-1]), flush=True)
    return rows


def main() -> None:
    """Run the levels and print one JSON line per level."""
    from resin.testing.faults import FaultyServer

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--passages", type=int, default=200)
    parser.add_argument("--sample", action="store_true", help="build the bundled sample corpus")
    parser.add_argument("--latency", type=float, default=0.5, help="loopback seconds per request")
    parser.add_argument("--slots", type=int, default=16, help="loopback requests served at once")
    parser.add_argument("--levels", default="1,4,8,16")
    parser.add_argument("--server", default=None, help="base URL of a real server (no loopback)")
    parser.add_argument("--model-name", default="local", help="model name sent to --server")
    parser.add_argument("--model", default=None, help="an in-process spec (embedded, gguf:PATH)")
    parser.add_argument("--eval", action="store_true", help="time `resin eval`'s answer stage")
    parser.add_argument("--questions", type=int, default=40)
    args = parser.parse_args()
    levels = [int(x) for x in args.levels.split(",")]
    with ExitStack() as stack:
        server = None
        if args.model:
            spec = args.model
        elif args.server:
            spec = f"openai:{args.model_name}@{args.server}"
        else:
            server = stack.enter_context(FaultyServer(latency=args.latency, slots=args.slots))
            spec = server.spec()
        if args.eval:
            eval_levels(spec, args.questions, levels)
        else:
            docs = (
                load_documents([SAMPLE_DIR / "docs"])[0] if args.sample else corpus(args.passages)
            )
            build_levels(spec, docs, levels, server)


if __name__ == "__main__":
    main()
