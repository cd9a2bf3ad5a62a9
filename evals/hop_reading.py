r"""The hop-reading benchmark: is a hop's own answer right, given the right earlier answers?

    python -m resin.evals.hop_reading [--data-dir ../shared/data] [--limit 100] [--seed 0]
        [--runs evals/runs/hop_reading] [--out evals/results/hop_reading.md] [--k 5]

The planner is taken out of the measure: every gold hop is read as the agent reads a hop of its
plan, with the gold answers of the hops before it in place of the agent's own, so a wrong answer
is the hop reader's (its retrieval or its reading), never an earlier hop's. On all three sets,
always together (a change that helps one set and hurts another shows here):

- MuSiQue: every step of `chain.decomposition`, `#k` standing for step k's gold answer;
- 2WikiMultihopQA: every evidence triple as a hop (subject, relation → object), a later hop's
  subject being an earlier one's gold object; both as `resin.evals.gold_plans.gold_steps` builds
  them (the hops of `agent_gold_plan`);
- HotpotQA: only the final answer is gold, so only questions Break decomposed (the ones its file
  marks `in_hotpotqa_dev_300`) count. Where the only earlier Break step is a plain `select`
  bridged by a `project`, its answer is the one supporting paragraph's title the question does not
  write, and the final step is scored given that title ("final step"; a lone `select` is scored
  as it is); otherwise the Break chain runs end to end, each step
  given the agent's own earlier answers and a combining last step computed as the parsed plan
  computes it (`gold_plans.break_plan`): "chain", or "not executable" when the agent's executor
  cannot run it (then it has no answer).

Questions: a seeded sample per set, the one `resin eval --subset --limit N --seed S` draws;
HotpotQA's sample holds few Break questions, so its corpus is built for the sample plus every
Break-decomposed question. Corpus and index are the runner's (`--subset`, `--extract nlp`:
the questions' gold paragraphs plus as many distractors), under RUNS/<set>/index (reruns build
nothing new).

Reading is `resin.agent.reading.typed_hop.resolve_typed`, the call `resolve_hop` makes for a
hop of a parsed or model plan (retrieval, the hop reader, its threshold, the year rule), with
the earlier hops' results as the graph would hold them; a computed step is
`resin.agent.answering.hop_compute.compute`, as `resolve_hop` computes one. The model fallback
of a model plan's unanswered hop (`bridge_value`) is not the reader and is not run, nor is any
model: the benchmark calls no chat model. Per hop: its answer, its route (`unit`, `sentence`,
`polarity`, `computed`, `none`), whether it read its gold paragraph and the gold answer's words,
and where the gold answer ranked among its candidates.

Weights: the shipped ranking (`agent/reading/hop_ranking.json`) was fit on these three files,
so its scores are in-sample. Each set is read again with weights refit by
`resin.evals.fit_ranking` on the other two files only (leave one dataset out, "LODO"): the
honest figures. The refits are cached in RUNS/lodo/ while the reader's code and data are
unchanged (a refit reads every gold hop of the three files: minutes).

Writes OUT (markdown) and OUT.json: the header of `resin.evals.provenance`, the run time, and
EM/F1 per set, hop position (1, 2, 3+ by dependency depth), expected answer type and route,
each under both weights; every hop's row (they quote the data) goes to RUNS/hops.jsonl, which
is git-ignored.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from tqdm import tqdm

import resin
from resin.agent.answering.hop_compute import compute
from resin.agent.context import Context
from resin.agent.reading import hop_answer
from resin.agent.reading.hop_answer import Ranking
from resin.agent.reading.typed_hop import HopReading, resolve_typed
from resin.agent.resources import get_index
from resin.agent.state import Hop, HopResult
from resin.evals.data import Dataset, load_dataset
from resin.evals.data.corpus import clean, read_jsonl
from resin.evals.data.normalized import from_records
from resin.evals.gold_plans import break_plan, gold_steps
from resin.evals.metrics import exact_match, f1, normalize_answer
from resin.evals.multihop import SETS
from resin.evals.provenance import command_of, format_header, provenance
from resin.evals.runner import RunConfig, build_index
from resin.indexes.documents import content_hash
from resin.indexes.index import Index, close_indexes
from resin.indexes.units import entity_key

BREAK = "break/hotpotqa_qdmr_dev.jsonl"
POSITIONS = ("1", "2", "3+", "chain")
ROUTES = ("sentence", "unit", "polarity", "computed", "none")
WEIGHTS = ("in-set", "LODO")
# Why a hop's answer is wrong, from retrieval to ranking (`failure`).
FAILURES = (
    "answer not read",
    "not a candidate",
    "outranked",
    "below threshold",
    "partial",
    "computed wrong",
    "earlier step unanswered",
    "not executable",
)
PATTERNS = 15


@dataclass
class Case:
    """One scored example: the hop read (with the plan around it), its gold, how it is scored.

    `given` holds the earlier hops' results as the graph would hold them had they been answered
    right; a chain has none (each step is given the agent's own answers).
    """

    dataset: str
    question_id: str
    scored: str  # "hop", "final step", "chain" or "not executable"
    position: str
    plan: list[Hop]
    answers: list[str]
    gold_docs: list[str]
    given: dict[int, HopResult] = field(default_factory=dict)
    all_gold: bool = False  # gold read only when every gold paragraph was read (a chain)


@dataclass
class Row:
    """What one case read and how it scores."""

    dataset: str
    question_id: str
    hop: int
    scored: str
    position: str
    question: str
    relation: str
    answer_type: str
    answers: list[str]
    answer: str
    route: str
    em: float
    f1: float
    gold_read: bool | None
    answer_read: bool
    gold_rank: int | None
    candidates: int
    failure: str
    weights: str


# --- positions, failures and the tables ---------------------------------------------------------
def depths(plan: Sequence[Hop]) -> dict[int, int]:
    """Each hop's dependency depth: 1 for a hop that needs none, else 1 + its deepest need's."""
    depth: dict[int, int] = {}
    for hop in plan:  # a plan lists a hop after the hops it needs
        depth[hop.id] = 1 + max((depth.get(d, 1) for d in hop.depends_on), default=0)
    return depth


def position_label(depth: int) -> str:
    """'1', '2' or '3+'."""
    return str(depth) if depth < 3 else "3+"


def failure(
    em: float,
    f1_score: float,
    answered: bool,
    answer_read: bool,
    gold_rank: int | None,
    how: str = "read",
) -> str:
    """Why the answer is wrong ('' when it is right), the first cause along the hop's reading.

    `how` the hop was reached: "read", "computed", "unrun" (a chain step whose earlier step had
    no answer) or "not executable". A read hop: the answer shares only some words with the gold;
    or the gold answer's words were not in what it read; or no candidate is the gold answer (the
    type filter, a span's bounds); or the gold candidate ranked first but under the threshold; or
    a wrong candidate ranked above it.
    """
    if em:
        return ""
    if how in ("not executable", "unrun"):
        return {"unrun": "earlier step unanswered"}.get(how, how)
    if answered and f1_score > 0:
        return "partial"
    if how == "computed":
        return "computed wrong"
    if not answer_read:
        return "answer not read"
    if gold_rank is None:
        return "not a candidate"
    if gold_rank == 1 and not answered:
        return "below threshold"
    return "outranked"


_NON_WORD = re.compile(r"[^\w\s]")


def _words(text: str) -> str:
    return normalize_answer(_NON_WORD.sub(" ", text))


def written(text: str, answers: Sequence[str]) -> bool:
    """Is a gold answer written in the text, as whole words ("1505–1572" writes 1572)?"""
    words = f" {_words(text)} "
    return any(g and f" {g} " in words for g in map(_words, answers))


def _cell(rows: Sequence[Row], total: int) -> dict[str, Any]:
    n = len(rows)
    read = [r.gold_read for r in rows if r.gold_read is not None]
    return {
        "n": n,
        "share": round(100 * n / total, 1) if total else None,
        "em": round(100 * sum(r.em for r in rows) / n, 1) if n else None,
        "f1": round(100 * sum(r.f1 for r in rows) / n, 1) if n else None,
        "answered": round(100 * sum(r.route != "none" for r in rows) / n, 1) if n else None,
        "gold_read": round(100 * sum(read) / len(read), 1) if read else None,
        "answer_read": round(100 * sum(r.answer_read for r in rows) / n, 1) if n else None,
    }


def _grouped(rows: Sequence[Row], key: str, order: Iterable[str] = ()) -> dict[str, Any]:
    values = list(dict.fromkeys([*order, *sorted({str(getattr(r, key)) for r in rows})]))
    groups = {v: [r for r in rows if str(getattr(r, key)) == v] for v in values}
    return {v: _cell(g, len(rows)) for v, g in groups.items() if g}


def summarize(rows: Sequence[Row]) -> dict[str, Any]:
    """EM/F1 per set (and all sets together), by position, answer type, route, how scored.

    Each cell: n, share of its set's hops, EM, F1, answered, gold read and answer read (%).
    """
    out: dict[str, Any] = {}
    sets = list(dict.fromkeys(r.dataset for r in rows))
    for name in [*sets, "all"]:
        mine = [r for r in rows if name in ("all", r.dataset)]
        wrong = Counter(r.failure for r in mine if r.failure)
        out[name] = {
            "all": _cell(mine, len(mine)),
            "position": _grouped(mine, "position", POSITIONS),
            "type": _grouped(mine, "answer_type"),
            "route": _grouped(mine, "route", ROUTES),
            "scored": _grouped(mine, "scored"),
            "failure": {f: wrong[f] for f in FAILURES if wrong[f]},
        }
    return out


def wrong_patterns(rows: Sequence[Row], limit: int = PATTERNS) -> list[dict[str, Any]]:
    """The most common kinds of wrong answer: set, expected type, route and failure, counted."""
    counts = Counter((r.dataset, r.answer_type, r.route, r.failure) for r in rows if r.failure)
    return [
        {"dataset": d, "answer_type": t, "route": r, "failure": f, "count": n}
        for (d, t, r, f), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
    ]


# --- the cases ----------------------------------------------------------------------------------
def _fill(text: str, values: dict[int, str]) -> str:
    return " ".join(re.sub(r"#(\d+)", lambda m: values.get(int(m.group(1)), ""), text).split())


def _given(
    plan: Sequence[Hop], hop: Hop, values: dict[int, dict[int, str]]
) -> dict[int, HopResult]:
    """The results of the hops `hop` needs, answered with gold (`values[k]`: hop k's fill-ins)."""
    by_id = {h.id: h for h in plan}
    out = {}
    for d in hop.depends_on:
        answer = values.get(hop.id, {}).get(d, "")
        earlier, fills = by_id[d], values.get(d, {})
        out[d] = HopResult(
            hop=d,
            query=_fill(earlier.question, fills),
            status="resolved",
            subject=_fill(earlier.subject, fills),
            answer=answer,
            bridge=answer,
        )
    return out


def paragraph_doc(paragraph: dict[str, Any], doc_ids: set[str]) -> str | None:
    """The corpus document of a record's paragraph (the loader's id: its title, or title#hash)."""
    title = clean(str(paragraph.get("title") or paragraph.get("pid") or ""))
    text = clean(str(paragraph.get("text") or "".join(paragraph.get("sentences") or [])))
    hashed = f"{title or 'doc'}#{content_hash(title, text, length=8)}"
    return hashed if hashed in doc_ids else title if title in doc_ids else None


def _docs(record: dict[str, Any], indices: Iterable[int], doc_ids: set[str]) -> list[str]:
    paragraphs = record.get("paragraphs") or []
    found = (paragraph_doc(paragraphs[i], doc_ids) for i in indices if 0 <= i < len(paragraphs))
    return list(dict.fromkeys(d for d in found if d))


def _supporting(record: dict[str, Any]) -> list[int]:
    return [i for i, p in enumerate(record.get("paragraphs") or []) if p.get("is_supporting")]


def _about(record: dict[str, Any], indices: list[int], subject: str) -> list[int]:
    key = entity_key(subject)
    titles = [entity_key(str(record["paragraphs"][i].get("title") or "")) for i in indices]
    return [
        i
        for i, t in zip(indices, titles, strict=True)
        if key and (t == key or t.startswith(key + " "))
    ]


def _writing(record: dict[str, Any], indices: list[int], answers: list[str]) -> list[int]:
    paragraphs = record["paragraphs"]
    return [
        i
        for i in indices
        if written(f"{paragraphs[i].get('title', '')} {paragraphs[i].get('text', '')}", answers)
    ]


def gold_cases(name: str, data: Dataset, records: dict[str, dict[str, Any]]) -> list[Case]:
    """Every gold hop of the sampled MuSiQue or 2Wiki questions, given gold earlier answers.

    Its gold paragraph: MuSiQue's support paragraph of the step; for a triple, the supporting
    paragraph about the hop's subject (else the supporting ones that write its answer).
    """
    doc_ids = {d.id for d in data.documents}
    cases = []
    for question in data.questions:
        steps = gold_steps(question.chain)
        if not steps:
            continue
        record = records[question.id]
        plan = [s.hop for s in steps]
        depth = depths(plan)
        values = {s.hop.id: s.given for s in steps}
        support = _supporting(record)
        for step in steps:
            subject = _fill(step.hop.subject, step.given)
            where = step.support or _about(record, support, subject)
            where = where or _writing(record, support, step.answers) or support
            cases.append(
                Case(
                    dataset=name,
                    question_id=question.id,
                    scored="hop",
                    position=position_label(depth[step.hop.id]),
                    plan=plan[: step.hop.id],
                    answers=step.answers + _aliases(step.answers, question.answers),
                    gold_docs=_docs(record, where, doc_ids),
                    given=_given(plan, step.hop, values),
                )
            )
    return cases


def _aliases(answers: list[str], final: list[str]) -> list[str]:
    """The question's answers, where the hop's answer is one of them (its last hop's aliases)."""
    return (
        [a for a in final if a not in answers]
        if any(exact_match(a, final) for a in answers)
        else []
    )


def _bare(title: str) -> str:
    return re.sub(r"\s*\([^()]*\)$", "", title).strip()


def break_cases(
    data: Dataset, records: dict[str, dict[str, Any]], decompositions: list[dict[str, Any]]
) -> list[Case]:
    """HotpotQA's Break-decomposed questions: the final step given gold, else the whole chain.

    The final step is given gold where the chain is one `select` then a `project` of it (a
    bridge) and exactly one supporting paragraph's title is not written in the question: the
    bridge entity, the select's answer. A `filter`'s select names a set, whose gold is no title.
    A single `select` is its own final step.
    """
    doc_ids = {d.id for d in data.documents}
    asked = {q.id: q for q in data.questions}
    cases = []
    for item in decompositions:
        question = asked.get(str(item["id"]))
        if question is None:
            continue
        record = records[question.id]
        steps, operators = list(item["steps"]), list(item["operators"])
        plan = break_plan(question.question, steps, operators)
        support = _supporting(record)
        key = f" {entity_key(question.question)} "
        titles = [str(record["paragraphs"][i].get("title") or "") for i in support]
        unwritten = [t for t in titles if f" {entity_key(_bare(t))} " not in key]
        final_given = (
            len(steps) == 2
            and operators == ["select", "project"]
            and "#1" in steps[1]
            and len(unwritten) == 1
            and len(plan) == 2
        )
        if final_given or (len(steps) == 1 and plan):
            values = {2: {1: _bare(unwritten[0])}} if final_given else {}
            scored, position = "final step", position_label(depths(plan)[plan[-1].id])
            given = _given(plan, plan[-1], values)
            where = _writing(record, support, question.answers) or support
        else:
            scored, position, given = ("chain" if plan else "not executable"), "chain", {}
            where = support
        cases.append(
            Case(
                dataset="HotpotQA",
                question_id=question.id,
                scored=scored,
                position=position,
                plan=plan,
                answers=question.answers,
                gold_docs=_docs(record, where, doc_ids),
                given=given,
                all_gold=scored != "final step",  # a chain reads every supporting paragraph
            )
        )
    return cases


# --- reading ------------------------------------------------------------------------------------
def _step(
    index: Index, ctx: Context, hop: Hop, results: dict[int, HopResult]
) -> tuple[dict[int, HopResult], HopReading | None]:
    """One hop as `resolve_hop` resolves it: computed, or read (`resolve_typed`)."""
    if hop.compute:
        answer, _ = compute(hop, results)
        status: Literal["resolved", "unresolved"] = "resolved" if answer else "unresolved"
        result = HopResult(
            hop=hop.id, query=hop.question, status=status, answer=answer, via="computed"
        )
        return {hop.id: result}, None
    out, _evidence, reading = resolve_typed(index, hop, results, ctx)
    return out, reading


def read_case(index: Index, ctx: Context, case: Case, weights: str) -> Row:
    """Read the case's hop (or run its chain) and score the answer."""
    hop = case.plan[-1] if case.plan else Hop(id=1, question="")
    result = HopResult(hop=hop.id, query="", status="unresolved")
    reading: HopReading | None = None
    read_docs: set[str] = set()
    texts: list[str] = []
    how = "not executable" if case.scored == "not executable" else "read"
    if how == "read":
        results = dict(case.given)
        todo = case.plan if case.scored == "chain" else [hop]
        for step in todo:
            if step is hop and not all(
                d in results and (results[d].answer or results[d].bridge) for d in hop.depends_on
            ):
                how = "unrun"  # `resolve_typed` reads nothing without every earlier answer
            out, reading = _step(index, ctx, step, results)
            results.update(out)
            if reading is not None:
                read_docs.update(p.doc_id for p in reading.passages)
                texts += [f"{p.title} {p.text}" for p in reading.passages]
        result = results[hop.id]
        how = "computed" if hop.compute and how == "read" else how
    answered = bool(result.answer)
    route = (result.via or "sentence") if answered else "none"
    em, f1_score = exact_match(result.answer, case.answers), f1(result.answer, case.answers)
    candidates = reading.answers if reading is not None and not hop.compute else []
    rank = next((i for i, c in enumerate(candidates, 1) if exact_match(c.text, case.answers)), None)
    gold = set(case.gold_docs)
    gold_read = (gold <= read_docs if case.all_gold else bool(gold & read_docs)) if gold else None
    answer_read = any(written(t, case.answers) for t in texts)
    return Row(
        dataset=case.dataset,
        question_id=case.question_id,
        hop=hop.id,
        scored=case.scored,
        position=case.position,
        question=result.query or hop.question,
        relation=hop.relation,
        answer_type=hop.answer_type,
        answers=case.answers,
        answer=result.answer,
        route=route,
        em=em,
        f1=f1_score,
        gold_read=gold_read,
        answer_read=answer_read,
        gold_rank=rank,
        candidates=len(candidates),
        failure=failure(em, f1_score, answered, answer_read, rank, how),
        weights=weights,
    )


def read_all(
    cases: Sequence[Case], contexts: dict[str, Context], weights: str, progress: bool
) -> list[Row]:
    """Every case read on its set's index."""
    rows = []
    for case in tqdm(cases, desc=f"hops ({weights})", disable=not progress):
        ctx = contexts[case.dataset]
        rows.append(read_case(get_index(ctx), ctx, case, weights))
    return rows


@contextmanager
def ranking_from(path: Path) -> Iterator[Ranking]:
    """Read hops with the weights in `path` (the shipped file's format) instead of the shipped.

    `hop_answer.ranking()` caches the weights it reads from `hop_answer.WEIGHTS_FILE`: the file
    name is pointed at `path` and the cache cleared, then both restored. The ranking in force is
    checked against the file, so a change in how hop_answer loads its weights fails here loudly
    rather than scoring the shipped weights twice.
    """
    shipped = hop_answer.WEIGHTS_FILE
    wanted = json.loads(path.read_text(encoding="utf-8"))
    hop_answer.WEIGHTS_FILE = path
    hop_answer.ranking.cache_clear()
    try:
        chosen = hop_answer.ranking()
        if list(chosen.weights) != [float(w) for w in wanted["weights"]]:
            raise RuntimeError(f"hop_answer did not load {path}: update ranking_from")
        yield chosen
    finally:
        hop_answer.WEIGHTS_FILE = shipped
        hop_answer.ranking.cache_clear()


# --- leave-one-dataset-out weights --------------------------------------------------------------
def _digest(paths: Iterable[Path]) -> str:
    sha = hashlib.sha1()
    for path in paths:
        sha.update(path.name.encode("utf-8"))
        sha.update(path.read_bytes())
    return sha.hexdigest()[:16]


def fit_fingerprint(files: Sequence[Path], seed: int) -> str:
    """What the refits depend on: the data, the reader's code and the shipped weights."""
    package = Path(resin.__file__).parent
    code = sorted(
        p
        for room in ("agent", "indexes")
        for p in (package / room).rglob("*.py")
        if "__pycache__" not in p.parts
    )
    code += [package / "evals" / "fit_ranking.py", hop_answer.WEIGHTS_FILE]
    return f"{_digest(files)}-{_digest(code)}-seed{seed}"


def lodo_weights(
    files: dict[str, Path], folder: Path, seed: int, refit: bool = False
) -> tuple[dict[str, Path], bool]:
    """For each set, weights fit on the other sets' files only: their paths, and whether cached.

    The gold hops of the three files are read once (`fit_ranking.labelled_hops`), then each fit
    uses the other two's (`fit_ranking.fit_labelled`). A cached fit is reused while
    `fit_fingerprint` holds.
    """
    from resin.evals import fit_ranking

    fingerprint = fit_fingerprint(list(files.values()), seed)
    out = {name: folder / f"without-{path.stem}.json" for name, path in files.items()}

    def cached(path: Path) -> bool:
        return path.exists() and json.loads(path.read_text()).get("fingerprint") == fingerprint

    if not refit and all(cached(p) for p in out.values()):
        return out, True
    labelled = fit_ranking.labelled_hops(list(files.values()))
    folder.mkdir(parents=True, exist_ok=True)
    for name, path in files.items():
        others = [p for p in files.values() if p != path]
        kept = [e for e in labelled if e[0].dataset != path.stem]
        report = fit_ranking.fit_labelled(kept, others, seed)
        report["fingerprint"] = fingerprint
        out[name].write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return out, False


# --- the report ---------------------------------------------------------------------------------
def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}"


def _pair(figures: dict[str, Any], name: str, group: str, value: str) -> list[str]:
    cells = []
    for weights in WEIGHTS:
        cell = figures["scores"][weights].get(name, {}).get(group, {}).get(value) or {}
        cells += [_num(cell.get("em")), _num(cell.get("f1"))]
    return cells


def _group_table(
    figures: dict[str, Any], group: str, label: str, order: Sequence[str], sets: Sequence[str] = ()
) -> list[str]:
    lines = [
        f"| set | {label} | n | in-set EM | in-set F1 | LODO EM | LODO F1 |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for name in sets or [*figures["sets"], "all"]:
        groups = figures["scores"]["in-set"].get(name, {}).get(group, {})
        for value in [v for v in dict.fromkeys([*order, *groups]) if v in groups]:
            n = groups[value]["n"]
            lines.append(
                "| " + " | ".join([name, value, str(n), *_pair(figures, name, group, value)]) + " |"
            )
    return lines


def report_markdown(figures: dict[str, Any]) -> str:
    """hop_reading.md from the figures also written as JSON."""
    settings, seconds = figures["settings"], figures["seconds"]
    lines = ["# Hop reading: each gold hop's own answer, given the right earlier answers", ""]
    lines += format_header(figures["header"])
    lines.append(
        f"- run time: {seconds['total'] / 60:.1f} min (index builds {seconds['index']:.0f} s, "
        f"leave-one-dataset-out fits {seconds['fits']:.0f} s"
        f"{' (cached)' if figures['weights']['lodo_cached'] else ''}, reading "
        f"{seconds['reading']:.0f} s)"
    )
    lines.append(
        f"- samples: `resin eval --subset --limit {settings['limit']} --seed {settings['seed']}` "
        f"per set (`--extract nlp`, k = {settings['k']}); indexes under `{settings['runs']}/`; "
        f"every hop's row (it quotes the data) in `{settings['runs']}/hops.jsonl`"
    )
    for name, fig in figures["sets"].items():
        scored = ", ".join(f"{n} {k}" for k, n in fig["scored"].items())
        lines.append(
            f"- {name}: `{fig['data']}`, {fig['questions']} questions, corpus {fig['documents']} "
            f"documents; {fig['cases']} scored ({scored}){fig.get('note', '')}"
        )
    lines.append(
        "- scored: MuSiQue, every decomposition step; 2WikiMultihopQA, every evidence triple; "
        "HotpotQA, Break's decompositions: `final step` (a `select` → `project` chain's last step "
        "given its bridge, the one supporting title the question does not write, or a lone "
        "`select`), `chain` (the Break chain end to end on the agent's own answers, a combining "
        "last step computed as the parsed plan computes it), `not executable` (a chain the "
        "executor cannot run: no answer)"
    )
    weights = figures["weights"]
    lines.append(f"- in-set weights: `{weights['in-set']['file']}`: {weights['in-set']['fitted']}")
    for name, lodo in weights["lodo"].items():
        lines.append(f"- LODO weights for {name}: {lodo['fitted']}")
    lines += [
        "",
        "Percentages. A hop is read as `resolve_hop` reads a hop of a plan (retrieval, the hop "
        "reader, its threshold), given the gold answers of the hops before it; EM and F1 are the "
        "project's (evals/metrics.py) against the hop's gold answers. In-set: the shipped weights, "
        "fit on these three files. LODO: each set read with weights refit on the other two only "
        "(the honest figures). Answered: the hop gave an answer; gold read: it read its gold "
        "paragraph; answer read: the gold answer's words were in what it read. Positions are "
        "dependency depths; `chain` is a HotpotQA Break chain run end to end.",
        "",
        "## Per set",
        "",
        "| set | hops | in-set EM | in-set F1 | LODO EM | LODO F1 | answered | gold read | answer read |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name in [*figures["sets"], "all"]:
        cell = figures["scores"]["in-set"][name]["all"]
        em_f1 = []
        for w in WEIGHTS:
            c = figures["scores"][w][name]["all"]
            em_f1 += [_num(c["em"]), _num(c["f1"])]
        extra = [_num(cell["answered"]), _num(cell["gold_read"]), _num(cell["answer_read"])]
        lines.append("| " + " | ".join([name, str(cell["n"]), *em_f1, *extra]) + " |")
    lines += [
        "",
        "## By hop position",
        "",
        *_group_table(figures, "position", "position", POSITIONS),
    ]
    lines += ["", "## By expected answer type", "", *_group_table(figures, "type", "type", ())]
    lines += [
        "",
        "## By route",
        "",
        "Share: of the set's hops answered by the route (`none`: no answer); EM/F1 of those hops.",
        "",
        "| set | route | in-set share | in-set EM | in-set F1 | LODO share | LODO EM | LODO F1 |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name in [*figures["sets"], "all"]:
        routes = {w: figures["scores"][w][name]["route"] for w in WEIGHTS}
        for route in [r for r in dict.fromkeys([*ROUTES, *routes["in-set"], *routes["LODO"]])]:
            if not any(route in routes[w] for w in WEIGHTS):
                continue
            cells = []
            for w in WEIGHTS:
                c = routes[w].get(route) or {}
                cells += [_num(c.get("share")), _num(c.get("em")), _num(c.get("f1"))]
            lines.append("| " + " | ".join([name, route, *cells]) + " |")
    hotpot = figures["scores"]["in-set"].get("HotpotQA", {}).get("scored", {})
    if hotpot:
        lines += ["", "## HotpotQA by what is scored", ""]
        lines += _group_table(figures, "scored", "scored", (), ["HotpotQA"])
    lines += [
        "",
        "## Why answers are wrong",
        "",
        "Wrong hops by the first cause along the reading: the gold answer's words were not in "
        "what the hop read; they were, but no candidate is the gold answer; a wrong candidate "
        "ranked above it; it ranked first under the threshold; the answer shares only some words "
        "with the gold; a computed step (or a chain) came out wrong; the chain cannot run.",
        "",
        "| set | cause | in-set | LODO |",
        "|---|---|---:|---:|",
    ]
    for name in [*figures["sets"], "all"]:
        causes = {w: figures["scores"][w][name]["failure"] for w in WEIGHTS}
        for cause in FAILURES:
            if any(cause in causes[w] for w in WEIGHTS):
                counts = [str(causes[w].get(cause, 0)) for w in WEIGHTS]
                lines.append(f"| {name} | {cause} | {' | '.join(counts)} |")
    lines += [
        "",
        f"## The {PATTERNS} most common wrong answers (in-set weights)",
        "",
        "| set | expected type | route | cause | hops |",
        "|---|---|---|---|---:|",
    ]
    for p in figures["patterns"]:
        lines.append(
            f"| {p['dataset']} | {p['answer_type']} | {p['route']} | {p['failure']} | {p['count']} |"
        )
    return "\n".join(lines) + "\n"


# --- the run ------------------------------------------------------------------------------------
def _records(path: Path) -> dict[str, dict[str, Any]]:
    return {str(r["id"]): r for r in read_jsonl(path)}


def load_set(name: str, path: Path, limit: int, seed: int, break_ids: set[str]) -> Dataset:
    """The set's seeded sample with its `--subset` corpus, as `resin eval` loads it.

    HotpotQA: the sample plus every Break-decomposed question, loaded by the same loader.
    """
    if name != "HotpotQA":
        return load_dataset(path, limit, seed, subset=True)
    sampled = {q.id for q in load_dataset(path, limit, seed).questions}
    records = [r for r in read_jsonl(path) if str(r["id"]) in sampled | break_ids]
    return from_records(records, path, None, seed, True, None)


def run(args: argparse.Namespace, command: str) -> dict[str, Any]:
    """Build the indexes, fit the LODO weights, read every case twice; the report's figures."""
    started = time.perf_counter()
    files = {name: args.data_dir / file for name, file in SETS.items()}
    decompositions = [d for d in read_jsonl(args.data_dir / BREAK) if d.get("in_hotpotqa_dev_300")]
    break_ids = {str(d["id"]) for d in decompositions}
    cases: list[Case] = []
    contexts: dict[str, Context] = {}
    sets: dict[str, Any] = {}
    for name, path in files.items():
        data = load_set(name, path, args.limit, args.seed, break_ids)
        folder = args.runs / path.parent.name / "index"
        config = RunConfig(
            data=str(path), out=str(args.runs), subset=True, extract="nlp", progress=args.progress
        )
        build_index(config, data, folder, data.passage_chars)
        records = _records(path)
        mine = (
            break_cases(data, records, decompositions)
            if name == "HotpotQA"
            else gold_cases(name, data, records)
        )
        cases += mine
        contexts[name] = Context(index_path=str(folder), chroma_host="", k_per_hop=args.k)
        sets[name] = {
            "data": str(path),
            "questions": len(data.questions),
            "documents": len(data.documents),
            "cases": len(mine),
            "scored": dict(Counter(c.scored for c in mine)),
        }
        if name == "HotpotQA":
            sampled = len(
                {q.id for q in load_dataset(path, args.limit, args.seed).questions} & break_ids
            )
            sets[name]["note"] = (
                f"; the sample of {args.limit} plus the {len(break_ids) - sampled} Break-decomposed "
                f"questions outside it ({sampled} are in it); only the {len(break_ids)} Break ones are scored"
            )
    close_indexes()  # read the indexes as just built
    built = time.perf_counter()
    lodo, cached = lodo_weights(files, args.runs / "lodo", args.seed, args.refit)
    fitted = time.perf_counter()
    rows = read_all(cases, contexts, "in-set", args.progress)
    for name in files:
        with ranking_from(lodo[name]):
            rows += read_all(
                [c for c in cases if c.dataset == name], contexts, "LODO", args.progress
            )
    close_indexes()
    done = time.perf_counter()
    args.runs.mkdir(parents=True, exist_ok=True)
    with (args.runs / "hops.jsonl").open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(asdict(row), ensure_ascii=False) + "\n")
    shipped = json.loads(hop_answer.WEIGHTS_FILE.read_text(encoding="utf-8"))
    lodo_notes = {}
    for name, path in lodo.items():
        report = json.loads(path.read_text(encoding="utf-8"))
        lodo_notes[name] = {
            "file": str(path),
            "fitted": report["fitted"],
            "threshold": report["threshold"],
            "cross_validated": report["cross_validated"],
        }
    package = Path(resin.__file__).parent
    return {
        "header": provenance(command),
        "settings": {"limit": args.limit, "seed": args.seed, "k": args.k, "runs": str(args.runs)},
        "seconds": {
            "total": round(done - started, 1),
            "index": round(built - started, 1),
            "fits": round(fitted - built, 1),
            "reading": round(done - fitted, 1),
        },
        "sets": sets,
        "weights": {
            "in-set": {
                "file": hop_answer.WEIGHTS_FILE.relative_to(package).as_posix(),
                "fitted": shipped.get("fitted", ""),
                "threshold": shipped.get("threshold"),
            },
            "lodo": lodo_notes,
            "lodo_cached": cached,
        },
        "scores": {w: summarize([r for r in rows if r.weights == w]) for w in WEIGHTS},
        "patterns": wrong_patterns([r for r in rows if r.weights == "in-set"]),
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; write the report and its JSON."""
    parser = argparse.ArgumentParser(prog="python -m resin.evals.hop_reading", description=__doc__)
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--limit", type=int, default=100, help="questions per set (seeded sample)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the sample and the subset")
    parser.add_argument("--k", type=int, default=5, help="passages and units per hop (k_per_hop)")
    parser.add_argument("--runs", type=Path, default=Path("evals/runs/hop_reading"))
    parser.add_argument("--out", type=Path, default=Path("evals/results/hop_reading.md"))
    parser.add_argument(
        "--refit", action="store_true", help="refit the LODO weights even if cached"
    )
    parser.add_argument("--quiet", dest="progress", action="store_false", help="no progress bars")
    args = parser.parse_args(argv)
    needed = [*SETS.values(), BREAK]
    missing = [str(args.data_dir / f) for f in needed if not (args.data_dir / f).exists()]
    if missing:
        parser.error(f"missing data: {', '.join(missing)}")
    figures = run(args, command_of("resin.evals.hop_reading", argv))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report_markdown(figures), encoding="utf-8")
    args.out.with_suffix(".json").write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    print(args.out.read_text(encoding="utf-8"))
    print(f"written: {args.out}, {args.out.with_suffix('.json')}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
