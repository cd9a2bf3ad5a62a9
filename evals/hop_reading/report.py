"""The benchmark's markdown report."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from resin.evals.hop_reading.scoring import FAILURES, PATTERNS, POSITIONS, ROUTES, WEIGHTS
from resin.evals.provenance import format_header


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
