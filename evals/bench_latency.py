r"""Seconds a person waits per question, stage by stage, with the answers' EM/F1 on the same questions.

    python -m resin.evals.bench_latency --questions 50 --out evals/results/latency_hotpot50_embedded.md
    python -m resin.evals.bench_latency --questions 50 --model openai:smollm2@http://127.0.0.1:PORT/v1 \
        --plan-model none --answer-mode choices --out evals/results/latency_hotpot50_server.md

Samples questions of HotpotQA dev-300 (seeded, as `resin eval --limit`), indexes their paragraphs
plus as many distractors (`--subset`, parser units unless `--extract` says otherwise; an existing
--index is brought to that corpus), warms the process (model, spaCy, embedder, one question outside
the sample), then streams every question through the agent as `resin ask` does. Per question:
wall seconds of plan, hops and compose (`resin.agent.trace.StageClock`), the answering call's own
llama.cpp seconds where the backend reports them, time to the first answer token, and in all;
EM/F1 of the short answer. Prints (and with --out writes) a markdown table of p50/p95 per stage,
the figures that matter and the load average, under the header of
`resin.evals.provenance` (date, commit, machine, command). Target (issue 18): p50 ≤ 10 s,
p95 ≤ 20 s, first token p50 ≤ 6 s, on a quiet CPU.

The server form needs the loopback llama.cpp server with the embedded GGUF running first:

    RESIN_LLAMA_THREADS=2 resin serve-model --port PORT
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from resin.agent.context import Context
from resin.agent.graph import graph
from resin.agent.llm import ANSWER_MODES, DEFAULT_CHAT_SPEC, make_chat_model
from resin.agent.trace import StageClock
from resin.evals import metrics
from resin.evals.data import Question, load_dataset
from resin.evals.provenance import command_of
from resin.evals.report import machine_settings, publish
from resin.indexes.build import Builder
from resin.indexes.extractors import extractors
from resin.indexes.nlp_extraction import load_pipeline
from resin.indexes.opening import open_index

# ../shared/data beside the repository, where CI and this machine keep the benchmark data.
HOTPOT = Path(__file__).resolve().parents[2] / "shared/data/hotpotqa/hotpotqa_dev_300.jsonl"
# Asked once before the sample (outside it): every code path loaded and run, as in a server.
WARM_UP = "In which country is the tower that Gustave Eiffel's company built for the 1889 fair?"
STAGES = ("plan", "hops", "compose", "answer model", "first token", "total")


def run_question(question: Question, ctx: Context) -> dict[str, Any]:
    """Stream one question as `resin ask` does; its stage seconds, answer and scores."""
    clock = StageClock()
    final: dict[str, Any] = {}
    figures: dict[str, Any] = {}
    parts: Any = graph.stream(
        {"question": question.question},
        context=ctx,
        stream_mode=["messages", "custom", "updates", "values"],
    )
    for mode, payload in parts:
        clock.part(mode, payload)
        if mode == "custom" and payload.get("event") == "answer":
            figures = payload
        elif mode == "values":
            final = payload
    seconds = clock.seconds()
    answer = str(final.get("answer") or "") if final.get("sources") else ""
    return {
        "id": question.id,
        "plan_source": final.get("plan_source"),
        "seconds": {
            **{k.replace("_", " "): v for k, v in seconds.items()},
            "answer model": figures.get("model_seconds"),
        },
        "cached_tokens": figures.get("cached_tokens"),
        "prompt_tokens": sum(int(u["prompt_tokens"]) for u in final.get("usage") or []),
        "model_calls": len(final.get("usage") or []),
        "em": 100 * metrics.exact_match(answer, question.answers),
        "f1": 100 * metrics.f1(answer, question.answers),
    }


def _cell(values: list[float], q: float) -> str:
    figure = metrics.percentile(values, q)
    return "—" if figure is None else f"{figure:.2f}"


def table(rows: list[dict[str, Any]], settings: dict[str, Any]) -> str:
    """The markdown report: settings, a stage table, answer quality."""
    lines = [f"- {k}: {v}" for k, v in settings.items()]
    lines += ["", "| stage | p50 s | p95 s | mean s |", "|---|---:|---:|---:|"]
    for stage in STAGES:
        values = [r["seconds"][stage] for r in rows if r["seconds"].get(stage) is not None]
        mean = metrics.mean(values)
        lines.append(
            f"| {stage} | {_cell(values, 50)} | {_cell(values, 95)} "
            f"| {'—' if mean is None else f'{mean:.2f}'} |"
        )
    n = len(rows)
    sources = sorted({str(r["plan_source"]) for r in rows})
    tokens = sum(r["prompt_tokens"] for r in rows) / n
    calls = sum(r["model_calls"] for r in rows) / n
    said = f"{tokens:.0f}" if tokens else "not reported (a streamed server call)" if calls else "0"
    lines += [
        "",
        f"{n} questions: EM {sum(r['em'] for r in rows) / n:.1f}, "
        f"F1 {sum(r['f1'] for r in rows) / n:.1f}; model calls per question "
        f"{calls:.1f}, prompt tokens per question {said}; "
        f"plans: {', '.join(sources)}.",
    ]
    cached = [r["cached_tokens"] for r in rows if r["cached_tokens"] is not None]
    if cached:
        lines.append(
            f"Answer prompts: {sum(cached) / len(cached):.0f} tokens each read from the prompt "
            "cache on average (the shared system prompt and instructions)."
        )
    return "\n".join(lines)


def build(index_path: Path, questions: int, seed: int, extract: str, model: str) -> Any:
    """The sampled questions and an index holding exactly their subset corpus."""
    data = load_dataset(HOTPOT, limit=questions, seed=seed, subset=True)
    extractor, nlp = extractors(extract, lambda: make_chat_model(model))
    index = open_index(index_path, create=True, passage_chars=data.passage_chars)
    try:
        builder = Builder(index, extractor, nlp=nlp, as_new=True)  # exactly the subset corpus
        wanted = {d.id for d in data.documents}
        for record in index.documents():
            if record.doc_id not in wanted:
                builder.delete(record.doc_id)
        builder.run(data.documents)
    finally:
        index.close()
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--questions", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--model", default=DEFAULT_CHAT_SPEC, help="model spec for every step")
    parser.add_argument("--plan-model", default="auto", help="auto, none or a model spec")
    parser.add_argument("--answer-mode", default="auto", choices=ANSWER_MODES)
    parser.add_argument("--extract", default="nlp", help="units of the index (nlp, none, ...)")
    parser.add_argument("--index", type=Path, default=Path("evals/runs/latency/index"))
    parser.add_argument("--out", type=Path, help="write the markdown report here")
    parser.add_argument("--json", type=Path, help="per-question rows (they name dataset ids)")
    args = parser.parse_args()

    data = build(args.index, args.questions, args.seed, args.extract, args.model)
    ctx = Context.one_model(
        args.model,
        plan_model=args.plan_model,
        answer_mode=args.answer_mode,
        index_path=str(args.index),
    )
    # A warm process, as a chat server's: model, parser and embedder loaded, one question run.
    make_chat_model(args.model).invoke("Hi")
    load_pipeline()("Warm.")
    run_question(Question(id="warm", question=WARM_UP, answers=["France"]), ctx)
    sampled = data.questions
    load_before = os.getloadavg()[0]
    rows = []
    for i, question in enumerate(sampled, 1):
        rows.append(run_question(question, ctx))
        total = rows[-1]["seconds"]["total"]
        print(f"[{i}/{len(sampled)}] {total:.2f} s", file=sys.stderr, flush=True)
    settings = {
        "data": f"{HOTPOT.name}, {len(sampled)} questions sampled with seed {args.seed} "
        f"(as `resin eval --limit`), subset corpus of {len(data.documents)} passages, "
        f"--extract {args.extract}",
        "model": f"{args.model}, plan_model {args.plan_model}, answer_mode {args.answer_mode}"
        + (
            ""
            if args.model.startswith("openai:")
            else f", RESIN_LLAMA_THREADS={os.environ.get('RESIN_LLAMA_THREADS', 'all cores')}"
        ),
        **machine_settings(load_before),
    }
    report = table(rows, settings)
    publish(report, rows, args.out, args.json, command_of("resin.evals.bench_latency"))


if __name__ == "__main__":
    main()
