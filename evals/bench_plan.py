"""How often a model writes a plan the agent can run: the evidence behind `plan_model` `auto`.

    python -m resin.evals.bench_plan                                     # embedded, 50 + 50 questions
    python -m resin.evals.bench_plan --model gguf:/models/qwen.gguf --questions 20
    python -m resin.evals.bench_plan --out evals/results/plan_valid_embedded.md

Sends each sampled question of the shared HotpotQA and QASC sets (seeded, as `resin eval
--limit`) to the planner exactly as the `plan` node does (`ask_planner`) and checks the reply with
`validate_plan`. A plan is **valid** when it parses and passes validation, **multi-hop** when it is
valid with two or more hops (a valid one-hop plan is the structural plan's first hop, so only a
multi-hop plan can add anything). Prints a markdown table: valid and multi-hop rates, the reasons
plans failed, seconds per call and prompt tokens; `--out` also writes it, headed by date, commit,
machine and command (`resin.evals.provenance`) and the load average.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections import Counter
from pathlib import Path
from typing import Any

from resin.agent.llm import DEFAULT_CHAT_SPEC
from resin.agent.nodes.plan import ask_planner, validate_plan
from resin.agent.state import Plan
from resin.evals.data import load_dataset
from resin.evals.provenance import command_of
from resin.evals.report import machine_settings, publish
from resin.prompts.structured import parse_reply, token_usage

DATA = Path(__file__).resolve().parents[2] / "shared/data"  # ../shared/data beside the repository
SETS = {
    "HotpotQA dev-300": DATA / "hotpotqa" / "hotpotqa_dev_300.jsonl",
    "QASC dev-926": DATA / "qasc" / "qasc_dev_926.jsonl",
}


def judge(spec: str, question: str) -> dict[str, Any]:
    """One planning call: valid or why not, hops, seconds, prompt tokens."""
    start = time.perf_counter()
    reply = ask_planner(spec, question)
    seconds = time.perf_counter() - start
    row: dict[str, Any] = {"seconds": seconds, "prompt_tokens": token_usage(reply)[0], "hops": 0}
    try:
        row["hops"] = len(validate_plan(parse_reply(reply, Plan)))
        row["failure"] = ""
    except ValueError as exc:  # PlanError is a ValueError, and so is an unparseable reply
        # the kind of failure, without the hop's own text ("hop 2's question '…' is not a question")
        row["failure"] = " ".join(w for w in str(exc).split(":")[-1].split() if "'" not in w)[:60]
    return row


def table(results: dict[str, list[dict[str, Any]]], spec: str, seed: int = 0) -> str:
    """The markdown table of one run."""
    lines = [
        f"Planner `{spec}`, questions sampled with seed {seed}.",
        "",
        "| set | questions | valid plans | multi-hop plans | s per call p50 | prompt tokens p50 "
        "| why plans failed |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for name, rows in results.items():
        n = len(rows)
        valid = sum(not r["failure"] for r in rows)
        multi = sum(r["hops"] >= 2 for r in rows)
        why = Counter(r["failure"] for r in rows if r["failure"]).most_common(4)
        lines.append(
            f"| {name} | {n} | {100 * valid / n:.0f}% ({valid}) | {100 * multi / n:.0f}% ({multi}) "
            f"| {statistics.median(r['seconds'] for r in rows):.1f} "
            f"| {statistics.median(r['prompt_tokens'] for r in rows):.0f} "
            f"| {'; '.join(f'{k} ({v})' for k, v in why) or '—'} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default=DEFAULT_CHAT_SPEC, help="the plan model spec")
    parser.add_argument("--questions", type=int, default=50, help="questions per set")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, help="write the markdown report here")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    results: dict[str, list[dict[str, Any]]] = {}
    for name, path in SETS.items():
        questions = load_dataset(path, limit=args.questions, seed=args.seed).questions
        results[name] = [judge(args.model, q.question) for q in questions]
    if not args.out:
        print(table(results, args.model, args.seed))
        return
    threads = os.environ.get("RESIN_LLAMA_THREADS", "all cores")
    settings = {"RESIN_LLAMA_THREADS": threads, **machine_settings(load_before)}
    lines = [f"- {k}: {v}" for k, v in settings.items()]
    text = "\n".join([*lines, "", table(results, args.model, args.seed)])
    publish(text, None, args.out, None, command_of("resin.evals.bench_plan"))


if __name__ == "__main__":
    main()
