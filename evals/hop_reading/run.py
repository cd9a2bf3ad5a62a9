"""The run: indexes, cases, LODO weights, reading, the report; the command line."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import resin
from resin.agent.context import Context
from resin.agent.reading import hop_answer
from resin.evals.data import Dataset, load_dataset
from resin.evals.data.corpus import read_jsonl
from resin.evals.data.normalized import from_records
from resin.evals.hop_reading.cases import BREAK, break_cases, gold_cases
from resin.evals.hop_reading.reading import lodo_weights, ranking_from, read_all
from resin.evals.hop_reading.report import report_markdown
from resin.evals.hop_reading.scoring import WEIGHTS, Case, summarize, wrong_patterns
from resin.evals.multihop import SETS
from resin.evals.provenance import command_of, provenance
from resin.evals.runner import RunConfig, build_index
from resin.indexes.opening import close_indexes


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
    from resin.evals import hop_reading

    parser = argparse.ArgumentParser(
        prog="python -m resin.evals.hop_reading", description=hop_reading.__doc__
    )
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
