"""Benchmark loaders: every format becomes `Question`s plus a corpus of `Document`s.

Formats, detected by `load_dataset`:

- the normalized JSONL schema (HotpotQA, QASC and any other multi-hop set written in it): the
  corpus is the union of the paragraphs of the questions in the run, deduplicated by title + text
  (HippoRAG-style); a question without paragraphs (QASC) draws on a fact pool instead: `--corpus`,
  else a `*fact_pool*.jsonl` beside the data file, else the facts written under `chain`;
- HotpotQA's official JSON (a list of `{_id, question, answer, context, supporting_facts}`);
- HolisQA (`qa.jsonl` with `sentences.jsonl`, optionally `articles.jsonl`, in the same folder):
  one document per article, its text the article's sentences.

A gold passage is named by the id of its document (`Question.gold_keys`). For HotpotQA the
document id is the paragraph title (titles are unique in its union corpora; a title that repeats
with another text gets `#hash`), so the gold key is the title, as in the official evaluation.

Every document's text is its sentences separated by blank lines, so each dataset sentence is one
block for `resin.indexes.documents.split_sentences`; `sentence_index` maps the index's sentence ids back
to dataset sentence ids exactly, whatever `passage_chars` groups them into.

This package's face is what callers import (`from evals.data import load_dataset, Question, ...`);
one module per format (`normalized`, `pooled`, `hotpot_official`, `holisqa`) over the shared
types (`dataset`), corpus pieces (`corpus`) and normalized-record fields (`records`).
"""

from __future__ import annotations

from pathlib import Path

from resin.evals.data.corpus import sentence_index
from resin.evals.data.dataset import DataError, Dataset, Question
from resin.evals.data.holisqa import load_holisqa
from resin.evals.data.hotpot_official import load_hotpot_official
from resin.evals.data.normalized import load_normalized

__all__ = [
    "DataError",
    "Dataset",
    "Question",
    "detect_format",
    "load_dataset",
    "load_holisqa",
    "load_hotpot_official",
    "load_normalized",
    "sentence_index",
]


def detect_format(path: Path) -> str:
    """'holisqa', 'hotpotqa-official' or 'normalized', from the file name and first bytes."""
    folder = path if path.is_dir() else path.parent
    if (path.is_dir() or path.name == "qa.jsonl") and (folder / "sentences.jsonl").exists():
        return "holisqa"
    if path.is_dir():
        raise DataError(f"{path}: a folder is only read as HolisQA (qa.jsonl + sentences.jsonl)")
    if not path.exists():
        raise DataError(f"{path}: no such file")
    with path.open("r", encoding="utf-8-sig") as fh:
        head = fh.read(4096).lstrip()
    if head.startswith("["):
        return "hotpotqa-official"
    first = head.splitlines()[0] if head else ""
    if '"qa_id"' in first and '"context_sentence_ids"' in first:
        return "holisqa"
    return "normalized"


def load_dataset(
    path: str | Path,
    limit: int | None = None,
    seed: int = 0,
    subset: bool = False,
    corpus: str | Path | None = None,
    drop_gold: bool = False,
) -> Dataset:
    """Load any supported benchmark file (see the module docstring).

    `drop_gold` leaves the sampled questions' gold documents out of the corpus: the documents
    are then silent on every question, and the right reply is "not found".
    """
    path = Path(path)
    fmt = detect_format(path)
    if fmt == "holisqa":
        data = load_holisqa(path, limit, seed, subset)
    elif fmt == "hotpotqa-official":
        data = load_hotpot_official(path, limit, seed, subset)
    else:
        data = load_normalized(path, limit, seed, subset, Path(corpus) if corpus else None)
    if drop_gold:
        gold = {k for q in data.questions for k in q.gold_keys}
        kept = [d for d in data.documents if d.id not in gold]
        data.notes.append(
            f"drop-gold: the {len(data.documents) - len(kept)} gold documents of the sampled "
            "questions are left out of the corpus"
        )
        data.documents = kept
    return data
