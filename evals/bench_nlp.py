"""The parser extractor on a benchmark corpus: throughput, coverage of gold sentences, a sample.

    python -m resin.evals.bench_nlp --data ../shared/data/hotpotqa/hotpotqa_dev_300.jsonl --sample 50
    python -m resin.evals.bench_nlp --docs agent/sample/docs    # load + extract wall time only
    python -m resin.evals.bench_nlp --out evals/results/nlp_extractor_bench.md

`--out` writes the figures (not the sample, which quotes the benchmark) as a markdown report
headed by date, commit, machine and command (`resin.evals.provenance`).

Extraction only (no embedding, no index): the corpus the eval harness builds from the file, cut
into the same passages. Reports

- passages/s and sentences/s on this machine (model tokens are 0 by construction);
- units per passage and per kind;
- coverage: of the gold supporting sentences, the share that yield at least one unit whose
  subject or object holds a named entity the parser found in that sentence (a resolved pronoun
  subject counts when it holds the passage title, itself a name), and the share with any unit;
- `--sample N` units drawn at random (seeded) as `kind | subject | predicate | object` with their
  sentence, for judging precision by eye.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from collections import Counter
from pathlib import Path
from typing import Any

from resin.evals.data import load_dataset, sentence_index
from resin.evals.provenance import command_of
from resin.evals.report import machine_settings, publish
from resin.indexes.documents import DEFAULT_PASSAGE_CHARS, make_passages
from resin.indexes.nlp_extraction import NlpExtractor, load_pipeline
from resin.indexes.reading import load_documents
from resin.indexes.units import ReasoningUnit, normalize


def _row(unit: ReasoningUnit) -> str:
    if unit.kind == "causal-edge":
        parts = [unit.source_state, unit.predicate, unit.target_state]
    elif unit.kind == "rule":
        parts = [" and ".join(unit.conditions), "then", unit.conclusion]
    else:
        parts = [unit.subject, unit.predicate, unit.object]
    neg = " (not)" if unit.polarity == "negative" else ""
    return f"{unit.kind} | " + " | ".join(parts) + neg


def _holds_name(text: str, names: list[str]) -> bool:
    padded = f" {normalize(text)} "
    return any(f" {n} " in padded for n in names)


def time_folder(path: str) -> dict[str, Any]:
    """Wall time to load the pipeline and extract a folder of documents (the sample corpus)."""
    started = time.perf_counter()
    documents, _ = load_documents([path])
    passages = [p for d in documents for p in make_passages(d, DEFAULT_PASSAGE_CHARS)]
    load_pipeline.cache_clear()
    extractor = NlpExtractor()
    loaded = time.perf_counter()
    units = [u for r in extractor.extract(passages) for u in r.units]
    done = time.perf_counter()
    return {
        "docs": path,
        "passages": len(passages),
        "units": len(units),
        "units_by_kind": dict(Counter(u.kind for u in units).most_common()),
        "load_seconds": round(loaded - started, 2),
        "extract_seconds": round(done - loaded, 2),
        "total_seconds": round(done - started, 2),
    }


def run(data_path: str, sample: int, seed: int, limit: int | None) -> dict[str, Any]:
    data = load_dataset(data_path, limit, seed)
    passages = [p for d in data.documents for p in make_passages(d, data.passage_chars)]
    extractor = NlpExtractor()
    extractor.extract(passages[:20])  # warm-up: the first batch pays for lazy allocations
    started = time.perf_counter()
    results = extractor.extract(passages)
    seconds = time.perf_counter() - started
    units = [u for r in results for u in r.units]
    sentences = sum(len(p.sentences) for p in passages)

    # coverage of the gold supporting sentences (dataset ids → index sentence ids)
    to_dataset = sentence_index(data.documents, data.doc_sentences, data.passage_chars)
    gold = {s for q in data.questions for s in q.gold_sentence_ids}
    text_of = {s.id: s.text for p in passages for s in p.sentences}
    title_of = {s.id: p.title for p in passages for s in p.sentences}
    pieces: dict[str, list[str]] = {}
    for sid, dataset_id in to_dataset.items():
        if dataset_id in gold:
            pieces.setdefault(dataset_id, []).append(sid)
    by_sentence: dict[str, list[ReasoningUnit]] = {}
    for unit in units:
        for sid in unit.sentence_ids:
            by_sentence.setdefault(sid, []).append(unit)
    docs = extractor.nlp.pipe(text_of[s] for ids in pieces.values() for s in ids)
    ents = {
        s: [normalize(e.text) for e in doc.ents if e.label_ not in ("CARDINAL", "ORDINAL")]
        for s, doc in zip([s for ids in pieces.values() for s in ids], docs, strict=True)
    }
    named = any_unit = 0
    for ids in pieces.values():
        found = [u for s in ids for u in by_sentence.get(s, [])]
        any_unit += bool(found)
        for unit in found:
            names = [n for s in ids for n in ents[s] if n]
            if unit.resolved:
                names.append(normalize(title_of[ids[0]]))
            spans = [unit.subject, unit.object, unit.source_state, unit.target_state]
            if any(_holds_name(x, names) for x in spans if x):
                named += 1
                break

    rng = random.Random(seed)
    drawn = rng.sample(units, min(sample, len(units)))
    kinds = Counter(u.kind for u in units)
    return {
        "data": data_path,
        "extractor": extractor.key,
        "passages": len(passages),
        "sentences": sentences,
        "seconds": round(seconds, 2),
        "passages_per_s": round(len(passages) / seconds, 1),
        "sentences_per_s": round(sentences / seconds, 1),
        "model_tokens": 0,
        "skipped": dict(Counter(r.skipped for r in results if r.skipped)),
        "units": len(units),
        "units_per_passage": round(len(units) / len(passages), 2),
        "units_by_kind": dict(kinds.most_common()),
        "units_per_passage_by_kind": {k: round(n / len(passages), 2) for k, n in kinds.items()},
        "resolved_pronoun_subjects": sum(bool(u.resolved) for u in units),
        "gold_sentences": len(pieces),
        "gold_with_named_unit": round(named / len(pieces), 4) if pieces else None,
        "gold_with_any_unit": round(any_unit / len(pieces), 4) if pieces else None,
        "sample": [{"unit": _row(u), "sentence": u.evidence} for u in drawn],
    }


def _escape_pipes(text: str) -> str:
    """A table cell's text, its pipes escaped (the extractor key holds some)."""
    return text.replace("|", "\\|")


def markdown(report: dict[str, Any], settings: dict[str, str]) -> str:
    """The report as markdown: settings, then one table of figures (no sample)."""
    n = report["passages"]
    kinds = ", ".join(
        f"{kind} {count:,} ({count / n:.2f} per passage)"
        for kind, count in report["units_by_kind"].items()
    )
    skipped = ", ".join(f"{why} {k}" for why, k in report["skipped"].items()) or "0"
    named, any_unit = report["gold_with_named_unit"], report["gold_with_any_unit"]
    rows = [
        ("extractor", f"`{report['extractor']}`"),
        ("passages / sentences", f"{n:,} / {report['sentences']:,}"),
        (
            "throughput",
            f"**{report['passages_per_s']} passages/s**, {report['sentences_per_s']} sentences/s "
            f"({report['seconds']} s)",
        ),
        ("model tokens", str(report["model_tokens"])),
        ("passages skipped", skipped),
        ("units", f"{report['units']:,} ({report['units_per_passage']} per passage)"),
        ("units per kind", kinds),
        ("pronoun subjects resolved", f"{report['resolved_pronoun_subjects']:,}"),
        (
            f"of the {report['gold_sentences']} gold supporting sentences: with ≥ 1 unit whose "
            "subject or object holds a named entity of the sentence",
            "—" if named is None else f"**{100 * named:.2f}%**",
        ),
        ("… with any unit", "—" if any_unit is None else f"{100 * any_unit:.2f}%"),
    ]
    lines = [f"- {k}: {v}" for k, v in settings.items()]
    lines += ["", "| figure | value |", "|---|---|"]
    lines += [f"| {k} | {_escape_pipes(v)} |" for k, v in rows]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="../shared/data/hotpotqa/hotpotqa_dev_300.jsonl")
    parser.add_argument("--limit", type=int, default=None, help="a seeded sample of questions")
    parser.add_argument("--sample", type=int, default=50, help="random units to print")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--docs", help="time a folder of documents instead (no coverage)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--out", type=Path, help="write the markdown report (no sample) here")
    args = parser.parse_args()
    if args.docs:
        print(json.dumps(time_folder(args.docs), indent=2))
        return
    load_before = os.getloadavg()[0]
    report = run(args.data, args.sample, args.seed, args.limit)
    if args.out:
        limit = f", {args.limit} questions sampled with seed {args.seed}" if args.limit else ""
        settings = {"data": f"`{args.data}`{limit}", **machine_settings(load_before)}
        publish(
            markdown(report, settings), None, args.out, None, command_of("resin.evals.bench_nlp")
        )
        return
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return
    for key, value in report.items():
        if key != "sample":
            print(f"{key:28} {value}")
    for i, row in enumerate(report["sample"], 1):
        print(f"{i:2}. {row['unit']}\n    « {row['sentence']} »")


if __name__ == "__main__":
    main()
