"""How the parsed planner decomposes the questions people write, against Break's decompositions.

    python -m resin.evals.bench_break                                 # all 1,043 questions
    python -m resin.evals.bench_break --limit 200 --seed 1
    python -m resin.evals.bench_break --out evals/results/break_planner.md --rows evals/runs/break.jsonl

The multi-hop sets measure answers on templated questions; Break (QDMR high-level) holds the
natural HotpotQA dev questions with a person's step-by-step decomposition, so it shows which of
the questions people actually write the parse-based planner can split. Each question is read as
`rewrite` reads it (`Question.read`) and planned by the real `plan` node under
`plan_model="parsed"` (a one-node graph: no model, no index), so the figures follow the node.

A human step is not a retrieval hop one for one, so plans are compared by structure: the
decomposition's shape (from Break's operators), whether the plan is multi-hop at all, whether
its retrieval hops match the human lookups (`human_lookups`), and whether each hop is a
well-formed question about something the question names (`hop_problems`, `unnamed_subject`).
The report (`--out`, and the JSON beside it) quotes a seeded draw of failures per shape; `--rows`
writes every question's plan and verdict (keep it under the git-ignored evals/runs/).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict
from functools import cache
from pathlib import Path
from typing import Any, Literal

from langgraph.graph import END, START, StateGraph

from resin.agent.context import Context
from resin.agent.language.questions import Question
from resin.agent.nodes.plan import plan as plan_node
from resin.agent.state import Hop, PlanSource, State
from resin.evals.break_judge import (
    SHAPES,
    Row,
    features,
    hop_problems,
    human_lookups,
    shape,
    unnamed_subject,
)
from resin.evals.provenance import command_of, format_header, provenance
from resin.evals.report import machine_settings

DATA = Path(__file__).resolve().parents[2] / "shared/data"  # ../shared/data beside the repository
BREAK = DATA / "break" / "hotpotqa_qdmr_dev.jsonl"


@cache
def _planner() -> Any:
    """The `plan` node alone in a graph: it streams its event as it does in the agent."""
    builder = StateGraph(State, context_schema=Context)
    builder.add_node("plan", plan_node)
    builder.add_edge(START, "plan")
    builder.add_edge("plan", END)
    return builder.compile()


def plan_question(read: Question) -> tuple[PlanSource | Literal["none"], list[Hop]]:
    """The plan node's hops for a question read by `Question.read`, under `plan_model="parsed"`."""
    state = _planner().invoke(
        {"read": read, "question": read.text}, context=Context(plan_model="parsed")
    )
    hops: list[Hop] = state.get("plan") or []
    return state.get("plan_source", "none") if hops else "none", hops


def measure(record: dict[str, Any]) -> Row:
    """Read, plan and judge one Break record."""
    started = time.perf_counter()
    read = Question.read(record["question"])
    read_ms = 1000 * (time.perf_counter() - started)
    started = time.perf_counter()
    source, hops = plan_question(read)
    plan_ms = 1000 * (time.perf_counter() - started)
    steps, operators = list(record["steps"]), [str(o) for o in record["operators"]]
    problems = [
        f"hop {h.id}: {p}"
        for i, h in enumerate(hops)
        for p in (
            hop_problems(h, [x.id for x in hops[:i]], read.text) if source == "parsed" else []
        )
    ]
    return Row(
        id=str(record.get("id", "")),
        question=read.text,
        shape=shape(operators),
        operators=operators,
        human_steps=len(steps),
        human_lookups=human_lookups(steps, operators),
        source=source,
        hops=[
            h.model_dump(include={"id", "question", "depends_on", "subject", "compute"})
            for h in hops
        ],
        lookups=sum(not h.compute for h in hops),
        multi_hop=source == "parsed" and len(hops) >= 2,
        problems=problems,
        unnamed=[h.subject for h in hops if source == "parsed" and unnamed_subject(h, read.text)],
        features=features(read),
        read_ms=read_ms,
        plan_ms=plan_ms,
    )


def load(path: Path, limit: int | None, seed: int) -> list[dict[str, Any]]:
    """Break records; `limit`: a seeded sample kept in file order (as `resin eval --limit`)."""
    with path.open(encoding="utf-8") as fh:
        records = [json.loads(line) for line in fh if line.strip()]
    if limit is not None and limit < len(records):
        chosen = set(random.Random(seed).sample(range(len(records)), limit))
        records = [r for i, r in enumerate(records) if i in chosen]
    return records


def _share(rows: Sequence[Row], test: Callable[[Row], bool]) -> dict[str, Any]:
    n = sum(test(r) for r in rows)
    return {"n": n, "of": len(rows), "pct": round(100 * n / len(rows), 1) if rows else None}


def figures(rows: Sequence[Row]) -> dict[str, Any]:
    """The metrics of a group of questions (garbled and unnamed over its parsed plans)."""
    parsed = [r for r in rows if r.source == "parsed"]
    return {
        "questions": len(rows),
        "multi_hop_plan": _share(rows, lambda r: r.multi_hop),
        "hops_equal_human": _share(rows, lambda r: r.lookups == r.human_lookups),
        "hops_fewer": _share(rows, lambda r: r.lookups < r.human_lookups),
        "hops_more": _share(rows, lambda r: r.lookups > r.human_lookups),
        "garbled_hop": _share(parsed, lambda r: r.garbled),
        "unnamed_entity_hop": _share(parsed, lambda r: bool(r.unnamed)),
        "clean_match": _share(rows, lambda r: r.clean),
        "human_lookups_mean": round(statistics.fmean(r.human_lookups for r in rows), 2)
        if rows
        else None,
    }


def examples(rows: Sequence[Row], seed: int, per_shape: int = 5) -> dict[str, list[Row]]:
    """A seeded draw of failures per shape (not cherry-picked).

    A failure is a multi-step question without a clean match, or a single-step question the
    planner split anyway.
    """
    rng = random.Random(seed)
    drawn: dict[str, list[Row]] = {}
    for name in SHAPES:
        failed = [
            r
            for r in rows
            if r.shape == name and (r.multi_hop if name == "single-step" else not r.clean)
        ]
        drawn[name] = sorted(rng.sample(failed, min(per_shape, len(failed))), key=rows.index)
    return drawn


def _pct(share: dict[str, Any]) -> str:
    return "—" if share["pct"] is None else f"{share['pct']:.0f}% ({share['n']}/{share['of']})"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _verdict(row: Row) -> str:
    said = []
    if row.shape == "single-step":
        said.append(f"split into {row.lookups} retrieval hops")
    elif not row.multi_hop:
        said.append("not decomposed")
    elif row.lookups != row.human_lookups:
        said.append(f"{row.lookups} retrieval hops for {row.human_lookups} human lookups")
    said += row.problems
    said += [f"unnamed subject {s!r}" for s in row.unnamed]
    return "; ".join(said)


RULES = """\
How to read it. Shapes come from Break's operators: **yes/no** (the last step is a boolean),
**comparison** (a comparison step, boolean sides included, or an unlabelled last step over two
selects), **intersection**, **aggregate** (the last step counts or computes), **filter** (a filter
step: filtered or superlative selections), **bridge** (select → project chains), **other** (union,
discard), **single-step**. Figures are over the multi-step questions (2+ human steps); the
single-step row, outside the total, counts questions the planner split anyway.

- **multi-hop plan**: the plan node planned from the parse (`parsed`) with 2+ hops (a computed
  comparison over option hops counts); otherwise the question is one structural hop.
- **hops = human**: the plan's retrieval hops (hops without `compute`; a structural plan has 1)
  equal the human lookups. A human step is a lookup when it is a select that relates something
  (a verb, a question or relative word, or a preposition/possessive leading to a name, number or
  `#k`, not a bare name or class such as "Sigmund Freud" or "fantasy authors"), a project or
  filter that does more than rename (`name of #1`), or a boolean about a named thing; comparison,
  boolean, aggregate, intersection, arithmetic, union and discard steps over `#k` are computed.
  At least one lookup per question. **fewer / more**: the plan has fewer or more.
- **garbled hop** (share of parsed plans): some hop is not a well-formed one-hop question. It does
  not open with a question word or auxiliary (a leading preposition is allowed: "In which city";
  *question word inside* when one sits later, "#1 was directed by whom?", else *no question
  word*); *no verb* (do-support alone does not count: "On what day did #1?"); *asks nothing*
  beyond its subject; *bare modifier as subject* (a determiner, adjective, number, or a
  nationality the question uses as a modifier: "Who is the daughter of Irish?", "What is the
  population of 2010?"); *dangling #k* (a placeholder it does not depend on). Beyond those:
  *description torn around #k* (the rest of a description left on the placeholder, "Who is #1
  horror film?", or the placeholder used as a class, "Which #1 did …"); *subject runs into the
  predicate* ("Which game is El Grande come from?"); *subject is the head of a description*
  ("What is the birthplace of Senator?" for "the Senator who …"); *quoted title split* (an odd
  number of quotes). A computed hop is only checked for dangling placeholders.
- **unnamed entity** (share of parsed plans): a hop whose subject is neither `#k` nor a span of the
  question (case, punctuation and possessive 's ignored).
- **clean match**: a multi-hop plan with hops = human and no garbled or unnamed hop."""


def report(
    rows: Sequence[Row],
    seed: int,
    data: Path,
    seconds: float,
    settings: dict[str, str] | None = None,
) -> tuple[str, dict[str, Any]]:
    """The markdown report (without the header) and its JSON figures; `settings`: more lines."""
    multi = [r for r in rows if r.human_steps >= 2]
    groups = {
        name: [r for r in multi if r.shape == name] for name in SHAPES if name != "single-step"
    }
    table: dict[str, dict[str, Any]] = {name: figures(g) for name, g in groups.items() if g}
    table["all multi-step"] = figures(multi)
    single = [r for r in rows if r.shape == "single-step"]
    reasons = Counter(p.split(": ", 1)[1] for r in multi for p in r.problems)
    plans_with = Counter(
        reason for r in multi for reason in {p.split(": ", 1)[1] for p in r.problems}
    )
    feature_rows = {
        f: figures([r for r in multi if f in r.features])
        for f, _ in Counter(f for r in multi for f in r.features).most_common()
    }
    plan_ms = [r.plan_ms for r in rows]
    timing = {
        "questions": len(rows),
        "seconds": round(seconds, 1),
        "read_plan_seconds": round(sum(r.read_ms + r.plan_ms for r in rows) / 1000, 1),
        "read_ms_p50": round(statistics.median(r.read_ms for r in rows), 1),
        "plan_ms_p50": round(statistics.median(plan_ms), 1),
        "plan_ms_p95": round(sorted(plan_ms)[int(0.95 * (len(plan_ms) - 1))], 1),
    }
    drawn: dict[str, list[Row]] = examples(rows, seed)
    lines = [
        "",
        f"- data: `{data.name}`, {len(rows)} questions ({len(multi)} with 2+ human steps), "
        f"example draw seed {seed}",
        f"- time: {timing['seconds']} s for {len(rows)} questions, judging included; reading and "
        f"planning {timing['read_plan_seconds']} s (parse p50 "
        f"{timing['read_ms_p50']} ms, plan node p50 {timing['plan_ms_p50']} ms, "
        f"p95 {timing['plan_ms_p95']} ms)",
        *(f"- {k}: {v}" for k, v in (settings or {}).items()),
        "",
        RULES,
        "",
        "## By shape",
        "",
        "| shape | questions | human lookups (mean) | multi-hop plan | hops = human | fewer | more "
        "| garbled hop | unnamed entity | clean match |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, fig in table.items():
        label = f"**{name}**" if name == "all multi-step" else name
        lines.append(
            f"| {label} | {fig['questions']} | {fig['human_lookups_mean']} "
            f"| {_pct(fig['multi_hop_plan'])} | {_pct(fig['hops_equal_human'])} "
            f"| {_pct(fig['hops_fewer'])} | {_pct(fig['hops_more'])} "
            f"| {_pct(fig['garbled_hop'])} | {_pct(fig['unnamed_entity_hop'])} "
            f"| {_pct(fig['clean_match'])} |"
        )
    if single:
        split = _share(single, lambda r: r.multi_hop)
        lines.append(
            f"| single-step (not in the total) | {len(single)} | 1 | {_pct(split)} | — | — | — "
            f"| — | — | — |"
        )
    lines += [
        "",
        "## Garbled hops by reason (multi-step questions)",
        "",
        "| reason | hops | plans |",
        "|---|---:|---:|",
        *(f"| {k} | {v} | {plans_with[k]} |" for k, v in reasons.most_common()),
        "",
        "## By what the question holds (multi-step questions; a question may hold several)",
        "",
        "| the question holds | questions | multi-hop plan | hops = human | garbled hop "
        "| clean match |",
        "|---|---:|---:|---:|---:|---:|",
        *(
            f"| {f} | {fig['questions']} | {_pct(fig['multi_hop_plan'])} "
            f"| {_pct(fig['hops_equal_human'])} | {_pct(fig['garbled_hop'])} "
            f"| {_pct(fig['clean_match'])} |"
            for f, fig in feature_rows.items()
        ),
        "",
        f"## Example failures (up to 5 per shape, drawn with seed {seed})",
        "",
        "By Break id: the data stays in ../shared/data (`--rows` writes each question's plan",
        "beside its text, outside the repository).",
        "",
        "| shape | Break id | human operators | what failed |",
        "|---|---|---|---|",
    ]
    for name, picked in drawn.items():
        for row in picked:
            failed = "; ".join(
                x for x in _verdict(row).split("; ") if not x.startswith("unnamed subject")
            )
            lines.append(f"| {name} | `{row.id}` | {' → '.join(row.operators)} | {_cell(failed)} |")
    data_json = {
        "data": str(data.name),
        "seed": seed,
        "timing": timing,
        "settings": settings or {},
        "by_shape": table,
        "single_step_split": _share(single, lambda r: r.multi_hop) if single else None,
        "garbled_reasons": {k: {"hops": v, "plans": plans_with[k]} for k, v in reasons.items()},
        "by_feature": feature_rows,
        "examples": {name: [r.id for r in picked] for name, picked in drawn.items()},
    }
    return "\n".join(lines), data_json


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=BREAK, help="Break QDMR JSONL")
    parser.add_argument("--limit", type=int, help="a seeded sample of N questions (default all)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the sample and the examples")
    parser.add_argument("--out", type=Path, help="write the markdown report here (and .json)")
    parser.add_argument("--rows", type=Path, help="write every question's plan and verdict (JSONL)")
    args = parser.parse_args()
    records = load(args.data, args.limit, args.seed)
    load_before = os.getloadavg()[0]
    started = time.perf_counter()
    rows = [measure(r) for r in records]
    seconds = time.perf_counter() - started
    text, data_json = report(rows, args.seed, args.data, seconds, machine_settings(load_before))
    figures_head = provenance(command_of("resin.evals.bench_break"))
    text = "\n".join(
        [
            "# The parsed planner on Break's human decompositions",
            "",
            *format_header(figures_head),
            text,
        ]
    )
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
        args.out.with_suffix(".json").write_text(
            json.dumps({"header": figures_head, **data_json}, indent=2) + "\n", encoding="utf-8"
        )
    if args.rows:
        args.rows.parent.mkdir(parents=True, exist_ok=True)
        with args.rows.open("w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps({**asdict(row), "clean": row.clean}) + "\n")


if __name__ == "__main__":
    main()
