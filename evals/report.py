"""Reporting of an evaluation run: figures per system, paired comparisons, summary.md, the plot.

`resin.evals.runner` scores each question into results/<system>.jsonl; these functions turn those rows
into the figures of results.json, the table of summary.md and plot.png.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from resin.evals import metrics
from resin.evals.data import Dataset
from resin.evals.provenance import header_lines
from resin.evals.systems import SYSTEMS


def paired(rows_of: dict[str, list[dict[str, Any]]], build: dict[str, Any]) -> dict[str, Any]:
    """Every system's figures on the questions all of them answered without error.

    Empty when they all cover the same questions; a run stopped midway is compared fairly here.
    """
    answered = [{r["id"] for r in rows if not r.get("error")} for rows in rows_of.values()]
    if len(answered) < 2 or all(a == answered[0] for a in answered):
        return {}
    common = set.intersection(*answered)
    return {
        "questions": len(common),
        "systems": {
            name: aggregate([r for r in rows if r["id"] in common], SYSTEMS[name].uses_units, build)
            for name, rows in rows_of.items()
        },
    }


def _rate(rows: list[dict[str, Any]], key: str) -> float | None:
    values = [float(r[key]) for r in rows if r.get(key) is not None]
    value = metrics.mean(values)
    return None if value is None else round(100 * value, 2)


def aggregate(
    rows: list[dict[str, Any]], uses_units: bool, build: dict[str, Any]
) -> dict[str, Any]:
    """One system's figures over its rows."""
    figures: dict[str, Any] = {
        "questions": len(rows),
        "errors": sum(1 for r in rows if r.get("error")),
    }
    for key in (
        "em",
        "f1",
        "read_f1",
        "acc",
        "choice",
        "context_recall",
        "relevancy",
        "plan_hops",
        "plan_entity",
    ):
        figures[key] = _rate(rows, key)
    for k in metrics.RECALL_KS:
        figures[f"recall@{k}"] = _rate(rows, f"recall@{k}")
        figures[f"all_gold@{k}"] = _rate(rows, f"all_gold@{k}")
    n = max(1, len(rows))
    words = [float(r.get("answer_words", 0)) for r in rows]
    figures["answer_words_p50"] = metrics.percentile(words, 50)
    figures["not_found"] = round(100 * sum(1 for w in words if not w) / n, 2)
    figures["loops"] = sum(1 for r in rows if r.get("looped"))
    figures["prompt_tokens_per_q"] = round(sum(r["prompt_tokens"] for r in rows) / n, 1)
    figures["completion_tokens_per_q"] = round(sum(r["completion_tokens"] for r in rows) / n, 1)
    figures["extraction_tokens_per_1k_corpus_tokens"] = (
        build.get("extraction_tokens_per_1k_corpus_tokens", 0.0) if uses_units else 0.0
    )
    latency = [float(r["latency"]) for r in rows]
    figures["latency_p50"] = metrics.percentile(latency, 50)
    figures["latency_p95"] = metrics.percentile(latency, 95)
    stages: dict[str, list[float]] = {}
    for r in rows:
        for stage, seconds in (r.get("stages") or {}).items():
            stages.setdefault(stage, []).append(float(seconds))
    figures["stages"] = {
        stage: {"p50": metrics.percentile(v, 50), "p95": metrics.percentile(v, 95)}
        for stage, v in stages.items()
    }
    return figures


def _fmt(value: Any, digits: int = 1) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _columns(data: Dataset) -> list[tuple[str, str]]:
    cols = [("EM", "em"), ("F1", "f1"), ("Read F1", "read_f1"), ("Acc", "acc")]
    if data.has_choices:
        cols.append(("Choice acc", "choice"))
    if data.has_gold_passages:
        cols += [("R@2", "recall@2"), ("R@5", "recall@5"), ("R@10", "recall@10")]
        cols += [("AllGold@2", "all_gold@2"), ("AllGold@5", "all_gold@5")]
    if data.has_gold_sentences:
        cols.append(("Context recall", "context_recall"))
    cols.append(("Ans. relevancy", "relevancy"))
    if data.has_gold_plans:
        cols += [("Plan hops = gold", "plan_hops"), ("Hop-1 entity = gold", "plan_entity")]
    return cols


def summary_markdown(report: dict[str, Any], data: Dataset) -> str:
    """summary.md: the header (date, commit, machine, command), settings, one table of systems."""
    run, build = report["run"], report["build"]
    cols = _columns(data)
    lines = [
        f"# resin eval: {data.name}",
        "",
        *header_lines(run.get("command") or "(API call)"),
        f"- data: `{data.path}` ({data.format}), {len(data.questions)} questions"
        + (f" (seeded sample, seed {run['seed']})" if run.get("limit") else ""),
        f"- corpus: {len(data.documents)} documents → {build.get('corpus_passages')} passages "
        f"(passage_chars {report['passage_chars']}); {'; '.join(data.notes)}",
        f"- model `{run['model']}` for every system; embedder `{build.get('embedder')}`; k = {run['k']}"
        f"; index `{report['index']}`",
        f"- extraction: {run['extract']}"
        + (
            f" with `{run.get('extract_model') or run['model']}`"
            if "model" in run["extract"]
            else " (spaCy parse, no model calls)"
            if run["extract"] == "nlp"
            else " (structural index: no units, no graph edges)"
        )
        + f"; {build.get('units', 0)} units, {build.get('graph_edges', 0)} graph edges, "
        f"{build.get('extraction_tokens_per_1k_corpus_tokens', 0)} extraction tokens per 1K corpus "
        f"tokens ({build.get('corpus_tokenizer')})",
        "",
        "Rates are percentages; tokens are per question; latency is wall seconds per question "
        "(p50/p95), stages in ms (p50/p95). Definitions: evals/README.md.",
        "",
    ]
    lines += _table(report["systems"], cols)
    if report.get("paired"):
        lines += [
            "",
            f"Paired: the {report['paired']['questions']} questions every system above has "
            "answered (the run is unfinished; compare systems here).",
            "",
            *_table(report["paired"]["systems"], cols),
        ]
    lines += ["", "Systems:", ""]
    lines += [f"- `{name}`: {SYSTEMS[name].description}" for name in report["systems"]]
    return "\n".join(lines) + "\n"


def _table(systems: dict[str, Any], cols: list[tuple[str, str]]) -> list[str]:
    header = ["system", "n", *[c for c, _ in cols], "not found", "ans. words p50", "loops"]
    header += ["prompt tok", "compl. tok"]
    header += ["extract tok/1K", "latency p50/p95 s", "stages p50/p95 ms"]
    lines = ["| " + " | ".join(header) + " |"]
    lines.append("|" + "|".join(["---"] + ["---:"] * (len(header) - 2) + ["---"]) + "|")
    for name, fig in systems.items():
        stages = " · ".join(
            f"{s} {1000 * v['p50']:.0f}/{1000 * v['p95']:.0f}" for s, v in fig["stages"].items()
        )
        errors = f" ({fig['errors']} err)" if fig["errors"] else ""
        cells = [name, f"{fig['questions']}{errors}"]
        cells += [_fmt(fig[key]) for _, key in cols]
        cells += [_fmt(fig.get("not_found")), _fmt(fig.get("answer_words_p50"), 0)]
        cells += [_fmt(fig.get("loops"))]
        cells += [_fmt(fig["prompt_tokens_per_q"], 0), _fmt(fig["completion_tokens_per_q"], 0)]
        cells += [_fmt(fig["extraction_tokens_per_1k_corpus_tokens"], 0)]
        cells += [f"{_fmt(fig['latency_p50'], 2)}/{_fmt(fig['latency_p95'], 2)}", stages or "—"]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def plot(report: dict[str, Any], data: Dataset, path: Path) -> None:
    """plot.png: quality metrics per system (grouped bars) and latency p50 with p95 whiskers."""
    import numpy as np

    from resin.agent.trace import pyplot

    plt = pyplot()

    names = list(report["systems"])
    wanted = [("F1", "f1"), ("Acc", "acc"), ("Choice acc", "choice"), ("R@5", "recall@5")]
    wanted += [("Context recall", "context_recall"), ("Ans. relevancy", "relevancy")]
    shown = [
        (label, key)
        for label, key in wanted
        if any(report["systems"][n].get(key) is not None for n in names)
    ]
    fig, (ax1, ax2) = plt.subplots(
        1, 2, figsize=(max(9.0, 1.4 * len(names) + 5), 4.8), gridspec_kw={"width_ratios": [3, 1.4]}
    )
    x = np.arange(len(names))
    width = 0.8 / max(1, len(shown))
    for i, (label, key) in enumerate(shown):
        values = [report["systems"][n].get(key) or 0.0 for n in names]
        ax1.bar(x + (i - (len(shown) - 1) / 2) * width, values, width, label=label)
    ax1.set_xticks(x, names, rotation=30, ha="right")
    ax1.set_ylabel("%")
    ax1.set_ylim(0, 100)
    ax1.set_title(f"{data.name}: {len(data.questions)} questions, model {report['run']['model']}")
    ax1.legend(fontsize=8, ncol=2)
    p50 = [report["systems"][n]["latency_p50"] or 0.0 for n in names]
    p95 = [report["systems"][n]["latency_p95"] or 0.0 for n in names]
    ax2.bar(x, p50, 0.6, color="tab:gray", label="p50")
    ax2.errorbar(
        x,
        p50,
        yerr=[[0] * len(names), [max(0.0, b - a) for a, b in zip(p50, p95, strict=True)]],
        fmt="none",
        ecolor="black",
        capsize=3,
        label="p95",
    )
    ax2.set_xticks(x, names, rotation=30, ha="right")
    ax2.set_ylabel("seconds per question")
    ax2.set_title("latency")
    ax2.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# --- the run ------------------------------------------------------------------------------------


def machine_settings(load_before: float) -> dict[str, str]:
    """A benchmark's last setting: the load it ran under (2 cores are easily shared)."""
    return {
        "load average (1 min)": f"{load_before:.2f} before, {os.getloadavg()[0]:.2f} after "
        f"({os.cpu_count()} cores)",
    }


def publish(
    text: str, figures: Any, out: Path | None, json_path: Path | None, command: str
) -> None:
    """Print a report headed by `header_lines(command)`; write it and its figures where asked."""
    text = "\n".join([*header_lines(command), text])
    print(text)
    if out:
        out.write_text(text + "\n", encoding="utf-8")
    if json_path:
        json_path.write_text(json.dumps(figures, indent=2), encoding="utf-8")
