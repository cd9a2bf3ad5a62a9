"""The multi-hop suite: the agent against dense and BM25 on HotpotQA, 2WikiMultihopQA and MuSiQue.

    python -m resin.evals.multihop [--data-dir ../shared/data] [--limit 100] [--seed 0]
        [--runs evals/runs/multihop] [--out evals/results/multihop.md]

Runs `resin eval --subset --limit N --seed S --model embedded --systems agent,dense,bm25` on each
of the three sets, always all three, into `RUNS/<set>/` (rerunning resumes, as `resin eval` does),
then writes OUT: the header of `resin.evals.provenance`, one line per set (data file, questions,
corpus) and one table, set × system, of EM, F1 and R@5 with the agent's EM margin over dense. The
same figures go to OUT with the suffix `.json`.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import resin
from resin.evals.provenance import command_of, format_header, provenance

# set name → its file under --data-dir; the run folder under --runs is the file's folder name.
SETS: dict[str, str] = {
    "HotpotQA": "hotpotqa/hotpotqa_dev_300.jsonl",
    "2WikiMultihopQA": "2wikimultihopqa/2wikimultihopqa_dev_250.jsonl",
    "MuSiQue": "musique/musique_dev_140.jsonl",
}
SYSTEMS = ("agent", "dense", "bm25")
MODEL = "embedded"
COLUMNS = (("EM", "em"), ("F1", "f1"), ("R@5", "recall@5"))


def eval_argv(
    data: Path, out: Path, limit: int, seed: int, quiet: bool, serve: Sequence[str] = ()
) -> list[str]:
    """The `resin eval` arguments of one set's run (`serve`: its --database flags, if any)."""
    argv = ["eval", "--data", str(data), "--subset", "--limit", str(limit), "--seed", str(seed)]
    argv += ["--model", MODEL, "--systems", ",".join(SYSTEMS), "--out", str(out), *serve]
    return argv + (["--quiet"] if quiet else [])


def run_set(
    data: Path, out: Path, limit: int, seed: int, quiet: bool, serve: Sequence[str] = ()
) -> dict[str, Any]:
    """Run (or resume) `resin eval` on one set; its results.json."""
    from resin.evals.cli import main as eval_main

    code = eval_main(eval_argv(data, out, limit, seed, quiet, serve))
    if code != 0:
        raise SystemExit(f"resin eval on {data} failed (exit {code})")
    report: dict[str, Any] = json.loads((out / "results.json").read_text(encoding="utf-8"))
    return report


def _margin(systems: dict[str, dict[str, Any]]) -> float | None:
    agent, dense = systems.get("agent", {}).get("em"), systems.get("dense", {}).get("em")
    return None if agent is None or dense is None else round(agent - dense, 2)


def set_figures(report: dict[str, Any]) -> dict[str, Any]:
    """One set's figures from its runner report (the results.json of `resin eval`)."""
    systems = {
        name: {
            "questions": fig["questions"],
            "errors": fig["errors"],
            **{key: fig.get(key) for _, key in COLUMNS},
        }
        for name in SYSTEMS
        if (fig := report["systems"].get(name))
    }
    return {
        "data": report["dataset"]["path"],
        "questions": report["dataset"]["questions"],
        "documents": report["dataset"]["documents"],
        "passages": report["build"].get("corpus_passages"),
        "command": report["run"].get("command", ""),
        "systems": systems,
        "agent_minus_dense_em": _margin(systems),
    }


def fitted_on(files: Sequence[str]) -> list[str]:
    """The agent's shipped weights fit on any of these data files, each with its `fitted` note."""
    from resin.agent.reading.hop_answer import WEIGHTS_FILE as HOP_RANKING
    from resin.tools.pairs import WEIGHTS_FILE as PAIR_WEIGHTS

    PACKAGE = Path(resin.__file__).parent  # noqa: N806  # names as the repository does

    names = [Path(f).name for f in files]
    notes = []
    for path in (HOP_RANKING, PAIR_WEIGHTS):
        fitted = str(json.loads(path.read_text(encoding="utf-8")).get("fitted", ""))
        if any(name in fitted for name in names):
            notes.append(f"{path.relative_to(PACKAGE).as_posix()}: {fitted}")
    return notes


def _cell(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "—"
    return f"{value:+.1f}" if signed else f"{value:.1f}"


def report_markdown(figures: dict[str, Any]) -> str:
    """multihop.md from the figures `write_report` also writes as JSON."""
    settings = figures["settings"]
    lines = [
        "# Multi-hop QA: the agent against dense and BM25",
        "",
        *format_header(figures["header"]),
    ]
    lines.append(
        f"- every set: `resin eval --subset --limit {settings['limit']} --seed {settings['seed']} "
        f"--model {settings['model']} --systems {','.join(SYSTEMS)}` (`--extract "
        f"{settings['extract']}`, k = {settings['k']}), "
        f"run folders under `{settings['runs']}/` (each with its summary.md)"
    )
    if settings.get("postgres"):
        lines.append(
            "- served from PostgreSQL: each set's index, built as above, copied into a database "
            "of its own (`resin eval --database`), its vectors on a Chroma server on this machine"
        )
    if figures["fitted_on"]:
        lines.append(
            "- in-sample: the agent's shipped weights were fit on these files (dense and BM25 use "
            f"none of them): {'; '.join(figures['fitted_on'])}"
        )
    for name, fig in figures["sets"].items():
        lines.append(
            f"- {name}: `{fig['data']}`, {fig['questions']} questions (seeded sample), corpus "
            f"{fig['documents']} documents → {fig['passages']} passages (their gold paragraphs "
            "plus as many distractors)"
        )
    lines += [
        "",
        "Percentages. EM and F1: the short answer against the gold answers; R@5: the share of "
        "gold passages among the first 5 ranked; agent − dense: the agent's EM minus dense "
        "retrieval's. Definitions: evals/README.md.",
        "",
        "| set | system | n | " + " | ".join(c for c, _ in COLUMNS) + " | agent − dense EM |",
        "|---|---|---:|" + "---:|" * len(COLUMNS) + "---:|",
    ]
    for name, fig in figures["sets"].items():
        for system, row in fig["systems"].items():
            n = str(row["questions"]) + (f" ({row['errors']} err)" if row["errors"] else "")
            cells = [name, system, n, *[_cell(row[key]) for _, key in COLUMNS]]
            cells.append(_cell(fig["agent_minus_dense_em"], True) if system == "agent" else "")
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def write_report(
    reports: dict[str, dict[str, Any]], settings: dict[str, Any], out: Path, command: str
) -> dict[str, Any]:
    """Write OUT (markdown) and OUT.json from each set's runner report; return the figures."""
    sets = {name: set_figures(report) for name, report in reports.items()}
    figures = {
        "header": provenance(command),
        "settings": settings,
        "fitted_on": fitted_on([fig["data"] for fig in sets.values()]),
        "sets": sets,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report_markdown(figures), encoding="utf-8")
    out.with_suffix(".json").write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return figures


@contextmanager
def _servers(runs: Path) -> Iterator[Callable[[str], list[str]]]:
    """PostgreSQL and Chroma for the block; a set's name → the `resin eval` flags to serve it.

    Each set gets an empty database of its own (one index per database).
    """
    import psycopg

    from resin.evals.bench_processes import chroma_server
    from resin.evals.postgres import postgres

    runs.mkdir(parents=True, exist_ok=True)
    with postgres() as url, tempfile.TemporaryDirectory(dir=runs) as chroma:
        with chroma_server(Path(chroma)) as (port, _pid):

            def serve(name: str) -> list[str]:
                database = f"resin_{name}"  # a set's folder may start with a digit
                with psycopg.connect(url, autocommit=True) as conn:
                    conn.execute(f"CREATE DATABASE {database}")
                database = url.rsplit("/", 1)[0] + f"/{database}"
                return ["--database", database, "--chroma-host", "127.0.0.1"] + [
                    "--chroma-port",
                    str(port),
                ]

            yield serve


def main(argv: Sequence[str] | None = None) -> int:
    """Run the three sets (resuming), then write the report and its JSON."""
    parser = argparse.ArgumentParser(prog="python -m resin.evals.multihop", description=__doc__)
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--limit", type=int, default=100, help="questions per set (seeded sample)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the sample and the subset")
    parser.add_argument("--runs", type=Path, default=Path("evals/runs/multihop"))
    parser.add_argument("--out", type=Path, default=Path("evals/results/multihop.md"))
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    parser.add_argument(
        "--postgres",
        action="store_true",
        help="serve each set's index from PostgreSQL: a throwaway server and a Chroma server "
        "are started, and each index is copied into a database of its own",
    )
    args = parser.parse_args(argv)
    missing = [str(args.data_dir / f) for f in SETS.values() if not (args.data_dir / f).exists()]
    if missing:
        parser.error(f"missing data: {', '.join(missing)}")
    with ExitStack() as stack:
        serve = stack.enter_context(_servers(args.runs)) if args.postgres else None
        reports = {
            name: run_set(
                args.data_dir / file,
                args.runs / Path(file).parent,
                args.limit,
                args.seed,
                args.quiet,
                serve(Path(file).parent.name) if serve else (),
            )
            for name, file in SETS.items()
        }
    run = reports["HotpotQA"]["run"]
    settings = {"limit": args.limit, "seed": args.seed, "model": MODEL, "runs": str(args.runs)}
    settings["postgres"] = args.postgres
    settings |= {"extract": run["extract"], "k": run["k"]}
    write_report(reports, settings, args.out, command_of("resin.evals.multihop", argv))
    print(args.out.read_text(encoding="utf-8"))
    print(f"written: {args.out}, {args.out.with_suffix('.json')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
