"""`resin eval`: measure the agent against the systems users would pick instead, in one run.

    resin eval --data ../shared/data/hotpotqa/hotpotqa_dev_300.jsonl --systems all --limit 100
        --model embedded --out evals/runs/hotpot

`register(subparsers)` adds the subcommand to resin's parser; `python -m resin.evals.cli eval ...`
runs it standalone.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import Any

from resin.agent.llm.spec import ANSWER_MODES, DEFAULT_CHAT_SPEC
from resin.evals.subcommand import add_subcommand
from resin.evals.systems import SYSTEMS, parse_systems
from resin.indexes.embeddings import DEFAULT_EMBEDDER_SPEC
from resin.indexes.extractors import EXTRACT_CHOICES


def add_concurrency_arg(parser: argparse.ArgumentParser) -> None:
    """`--concurrency N`: model requests kept in flight."""
    parser.add_argument(
        "--concurrency",
        type=_positive,
        default=None,
        metavar="N",
        help="model requests in flight at once (default 8 for openai: specs, RESIN_LLAMA_SLOTS for a "
        "local GGUF)",
    )


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the `eval` subcommand (its handler is `run`)."""
    about = "compare the agent with baselines and ablations on a benchmark file"
    p = add_subcommand(subparsers, "eval", about, __doc__, run)
    p.add_argument(
        "--data",
        required=True,
        help="normalized JSONL, HotpotQA official JSON, or HolisQA qa.jsonl (sentences.jsonl beside)",
    )
    p.add_argument(
        "--systems",
        default="all",
        help=f"'all' or a comma-separated list of: {', '.join(SYSTEMS)}",
    )
    p.add_argument("--limit", type=int, default=None, help="a seeded random N of the questions")
    p.add_argument(
        "--model",
        default=DEFAULT_CHAT_SPEC,
        help=f"chat model spec used by every system (default: {DEFAULT_CHAT_SPEC}; fake: the "
        "scripted rule-based model of resin.testing, no model time)",
    )
    p.add_argument("--out", required=True, help="output folder (rerun the same command to resume)")
    p.add_argument("--index", default=None, help="index folder (default: OUT/index)")
    p.add_argument(
        "--subset",
        action="store_true",
        help="corpus = the sampled questions' gold passages plus as many distractors (their own first)",
    )
    p.add_argument(
        "--k", type=int, default=5, help="passages (and units) retrieved per query or hop"
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the question sample and the subset")
    p.add_argument(
        "--extract",
        choices=EXTRACT_CHOICES,
        default="nlp",
        help="units from the spaCy parse (default), the --extract-model, both (nlp+model), or "
        "none (structural index only: no units, no graph edges)",
    )
    p.add_argument("--extract-model", default=None, help="extraction model spec (default: --model)")
    p.add_argument(
        "--embedder", default=DEFAULT_EMBEDDER_SPEC, help="embedder name or path (default: MiniLM)"
    )
    p.add_argument(
        "--passage-chars",
        type=int,
        default=None,
        help="max characters per passage (default: one paragraph per passage; HolisQA 1000)",
    )
    p.add_argument(
        "--corpus", default=None, help="fact pool JSONL for questions without paragraphs (QASC)"
    )
    p.add_argument(
        "--answer-mode",
        choices=ANSWER_MODES,
        default="auto",
        help="how every system reaches its short answer (docs/answering.md)",
    )
    p.add_argument(
        "--plan-model",
        default=None,
        help="the agent's planner: auto (default), parsed (the question's parse), none (one hop), "
        "or a model spec",
    )
    p.add_argument(
        "--drop-gold",
        action="store_true",
        help="leave the sampled questions' gold passages out of the corpus (the right answer is "
        "then 'not found'; the summary's 'not found' column says how often systems say so)",
    )
    p.add_argument(
        "--database",
        default=None,
        help="serve the systems from this PostgreSQL database (empty, or holding this run's "
        "copy): the index built in --index is copied there, its vectors to --chroma-host",
    )
    p.add_argument("--chroma-host", default="", help="the Chroma server of --database")
    p.add_argument("--chroma-port", type=int, default=8000, help="its port (default: 8000)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    add_concurrency_arg(p)
    return p


def command_line(args: argparse.Namespace) -> str:
    """The `resin eval` command that reproduces this run (for summary.md)."""
    parts = ["resin", "eval"]
    flags = {
        "data": "--data",
        "systems": "--systems",
        "limit": "--limit",
        "model": "--model",
        "out": "--out",
        "index": "--index",
        "k": "--k",
        "seed": "--seed",
        "extract": "--extract",
        "extract_model": "--extract-model",
        "embedder": "--embedder",
        "passage_chars": "--passage-chars",
        "corpus": "--corpus",
        "answer_mode": "--answer-mode",
        "plan_model": "--plan-model",
    }
    for attr, flag in flags.items():
        value = getattr(args, attr, None)
        if value is not None:
            parts += [flag, str(value)]
    if getattr(args, "database", None):
        from resin.indexes.database import shown_url

        parts += ["--database", shown_url(args.database), "--chroma-host", args.chroma_host]
        parts += ["--chroma-port", str(args.chroma_port)]
    if getattr(args, "subset", False):
        parts.append("--subset")
    if getattr(args, "drop_gold", False):
        parts.append("--drop-gold")
    return " ".join(shlex.quote(p) for p in parts)


def run(args: argparse.Namespace) -> int:
    """Run or resume the evaluation and print summary.md."""
    from pathlib import Path

    from resin.evals.runner import RunConfig, run_eval
    from resin.evals.scripted import register_fake

    if args.limit is not None and args.limit < 1:
        raise ValueError("--limit must be at least 1")
    if args.k < 1:
        raise ValueError("--k must be at least 1")
    register_fake()
    config = RunConfig(
        data=args.data,
        out=args.out,
        systems=parse_systems(args.systems),
        limit=args.limit,
        model=args.model,
        index=args.index,
        subset=args.subset,
        k=args.k,
        seed=args.seed,
        extract=args.extract,
        extract_model=args.extract_model,
        embedder=args.embedder,
        passage_chars=args.passage_chars,
        corpus=args.corpus,
        progress=not args.quiet,
        command=command_line(args),
        concurrency=args.concurrency,
        answer_mode=args.answer_mode,
        drop_gold=args.drop_gold,
        plan_model=args.plan_model or "auto",
        database=args.database,
        chroma_host=args.chroma_host,
        chroma_port=args.chroma_port,
    )
    run_eval(config)
    print((Path(args.out) / "summary.md").read_text(encoding="utf-8"))
    print(f"written: {Path(args.out) / 'summary.md'}, results.json, plot.png, traces/")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Standalone entry point: `python -m resin.evals.cli eval ...`."""
    parser = argparse.ArgumentParser(prog="python -m resin.evals.cli")
    sub = parser.add_subparsers(dest="command", required=True)
    register(sub)
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
