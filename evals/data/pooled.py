"""Normalized records without paragraphs (QASC): gold = supporting fact ids, corpus = a fact pool.

The pool is `--corpus`, else a `*fact_pool*.jsonl` beside the data file, else the facts written
under each question's `chain`; one fact is one document and one passage.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from resin.evals.data.corpus import choose_from_pool, read_jsonl, sentence_document
from resin.evals.data.dataset import DataError, Dataset
from resin.evals.data.records import record_question, records_dataset


def find_pool(path: Path) -> Path | None:
    """The `*fact_pool*.jsonl` beside `path`, if there is one."""
    for candidate in sorted(path.parent.glob("*.jsonl")):
        if candidate != path and "fact_pool" in candidate.name:
            return candidate
    return None


def load_pooled(
    path: Path,
    records: list[dict[str, Any]],
    limit: int | None,
    seed: int,
    subset: bool,
    corpus: Path | None,
) -> Dataset:
    """Questions without paragraphs (QASC): gold = supporting fact ids, corpus = a fact pool."""
    pool_path = corpus or find_pool(path)
    facts: dict[str, str] = {}
    source = ""
    if pool_path is not None:
        for rec in read_jsonl(pool_path):
            fid = rec.get("fact_id") or rec.get("id")
            if fid is not None and str(rec.get("text") or "").strip():
                facts[str(fid)] = str(rec["text"])
        source = f"the fact pool {pool_path.name} ({len(facts)} facts)"
    else:  # no pool: the facts written under each question's chain, named by supporting_facts
        for r in records:
            ids = [str(f[0]) for f in r.get("supporting_facts") or [] if f]
            texts = [
                str(v)
                for k, v in sorted((r.get("chain") or {}).items())
                if k.startswith("fact") and isinstance(v, str)
            ]
            for fid, text in zip(ids, texts, strict=False):
                facts.setdefault(fid, text)
        source = f"the {len(facts)} facts written under the questions' 'chain' (no fact pool found)"
    if not facts:
        raise DataError(f"{path}: questions have no paragraphs and no fact pool was found")
    questions = []
    for r in records:
        gold = [str(f[0]) for f in r.get("supporting_facts") or [] if f and str(f[0]) in facts]
        unique = list(dict.fromkeys(gold))
        questions.append(record_question(r, unique, [f"{g}::0" for g in unique], list(unique)))
    names = ("facts", f"facts from {source}", source)
    chosen, keep, notes = choose_from_pool(questions, limit, seed, subset, list(facts), names)
    docs, sentences = [], {}
    for fid, text in facts.items():
        if fid in keep:
            doc, sids = sentence_document(fid, "", text, [text], [f"{fid}::0"])
            docs.append(doc)
            sentences[fid] = sids
    return records_dataset(records, path, "normalized+pool", chosen, (docs, sentences), notes)
