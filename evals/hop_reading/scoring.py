"""What a hop read scores: its cases and rows, hop positions, failure causes and the tables."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from resin.agent.state import Hop, HopResult
from resin.evals.metrics import normalize_answer

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
