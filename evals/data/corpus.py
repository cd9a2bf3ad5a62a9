"""The pieces every loader shares: reading JSONL, sentence-block documents, sampling, subsets.

Written once here so the formats differ only in how they read their files.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from resin.evals.data.dataset import DataError, Question
from resin.indexes.documents import Document, make_passages, split_sentences
from resin.indexes.reading import jsonl_records


def clean(text: str) -> str:
    """`text` with every run of whitespace made one space."""
    return " ".join(str(text).split())


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    """The JSON objects of a JSONL file, blank lines skipped; a `DataError` names a bad line."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise DataError(f"{path}: cannot read ({exc.strerror})") from exc
    for lineno, record in jsonl_records(path, text, DataError):
        if not isinstance(record, dict):
            raise DataError(f"{path}:{lineno}: expected a JSON object")
        yield record


def sentence_document(
    doc_id: str, title: str, text: str, sentences: list[str], sentence_ids: list[str]
) -> tuple[Document, list[str]]:
    """A document whose blocks are its sentences; the dataset ids of those blocks, in order."""
    pairs = [(sid, clean(s)) for sid, s in zip(sentence_ids, sentences, strict=True) if clean(s)]
    if pairs:
        body = "\n\n".join(s for _, s in pairs)
        return Document(id=doc_id, title=title, text=body), [sid for sid, _ in pairs]
    return Document(id=doc_id, title=title, text=clean(text)), []


def sentence_index(
    documents: Iterable[Document], doc_sentences: dict[str, list[str]], passage_chars: int
) -> dict[str, str]:
    """Index sentence id (`<passage id>:<i>`) → dataset sentence id, for documents that have them.

    `split_sentences` cuts each blank-line block (one dataset sentence) into pieces and
    `make_passages` groups the pieces in order, so the k-th piece of the document belongs to the
    dataset sentence whose block produced it.
    """
    mapping: dict[str, str] = {}
    for doc in documents:
        sids = doc_sentences.get(doc.id)
        if not sids:
            continue
        owners: list[str] = []
        for sid, block in zip(sids, doc.text.split("\n\n"), strict=False):
            owners.extend([sid] * len(split_sentences(block)))
        pieces = [s.id for p in make_passages(doc, passage_chars) for s in p.sentences]
        if len(pieces) != len(owners):
            continue  # cannot align (should not happen): no sentence credit for this document
        mapping.update(zip(pieces, owners, strict=True))
    return mapping


# --- sampling and subsets ----------------------------------------------------------------------
def sample(questions: list[Question], limit: int | None, seed: int) -> list[Question]:
    """A seeded random `limit` of the questions, in file order (all of them without a limit)."""
    if limit is None or limit >= len(questions):
        return list(questions)
    chosen = set(random.Random(seed).sample(range(len(questions)), limit))
    return [q for i, q in enumerate(questions) if i in chosen]


def subset_docs(
    gold: list[str], pool: list[str], seed: int, near: Sequence[str] = ()
) -> tuple[set[str], int]:
    """The gold documents plus as many distractors (seeded): first from `near`, then the pool.

    `near` holds the sampled questions' own non-gold passages (HotpotQA's distractor paragraphs,
    retrieved to resemble the gold ones), so the subset keeps the hard negatives.
    """
    gold_set = set(gold)
    rng = random.Random(seed)
    near_left = sorted(set(near) - gold_set)
    rng.shuffle(near_left)
    rest = sorted(set(pool) - gold_set - set(near_left))
    rng.shuffle(rest)
    extra = (near_left + rest)[: len(gold_set)]
    return gold_set | set(extra), len(extra)


def choose_from_pool(
    questions: list[Question],
    limit: int | None,
    seed: int,
    subset: bool,
    pool: list[str],
    names: tuple[str, str, str],
) -> tuple[list[Question], set[str], list[str]]:
    """The sampled questions, the pool ids the corpus keeps, and the note that says which.

    All of `pool`, or with `subset` the sampled questions' own documents plus as many random
    others. `names` words the note: (the gold documents, the distractors, the whole pool).
    """
    gold_name, distractors, whole = names
    chosen = sample(questions, limit, seed)
    if subset:
        own = [k for q in chosen for k in q.own_keys]
        keep, extra = subset_docs(own, pool, seed)
        notes = [
            f"subset: the {len(set(own))} gold {gold_name} of the {len(chosen)} sampled questions "
            f"plus {extra} random {distractors} (seed {seed})"
        ]
    else:
        keep = set(pool)
        notes = [f"corpus: {whole}"]
    return chosen, keep, notes
