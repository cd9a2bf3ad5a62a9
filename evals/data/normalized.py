"""The normalized JSONL schema with paragraphs: the corpus is the union of the run's paragraphs.

Paragraphs are deduplicated by title + text (HippoRAG-style) and named by their title where it is
unique; records without any paragraphs go to the fact-pool loader (`resin.evals.data.pooled`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from resin.evals.data.corpus import clean, read_jsonl, sample, sentence_document, subset_docs
from resin.evals.data.dataset import DataError, Dataset
from resin.evals.data.pooled import load_pooled
from resin.evals.data.records import record_question, records_dataset
from resin.indexes.documents import Document, content_hash


class _Corpus:
    """Documents deduplicated by (title, text), with ids that are titles where titles are unique."""

    def __init__(self) -> None:
        self.docs: dict[tuple[str, str], tuple[str, list[str]]] = {}
        self.ids: dict[tuple[str, str], str] = {}

    def add(self, title: str, text: str, sentences: list[str] | None) -> tuple[str, str]:
        key = (clean(title), clean(text))
        if key not in self.docs:
            self.docs[key] = (text, list(sentences or []))
        return key

    def assign_ids(self) -> None:
        by_title: dict[str, int] = {}
        for title, _ in self.docs:
            by_title[title] = by_title.get(title, 0) + 1
        for key in self.docs:
            title, text = key
            unique = title and by_title[title] == 1
            self.ids[key] = (
                title if unique else f"{title or 'doc'}#{content_hash(title, text, length=8)}"
            )

    def documents(
        self, keep: set[str] | None = None
    ) -> tuple[list[Document], dict[str, list[str]]]:
        docs, sentences = [], {}
        for key, (text, sents) in self.docs.items():
            doc_id = self.ids[key]
            if keep is not None and doc_id not in keep:
                continue
            doc, sids = sentence_document(
                doc_id, key[0], text, sents, [f"{doc_id}::{i}" for i in range(len(sents))]
            )
            docs.append(doc)
            if sids:
                sentences[doc_id] = sids
        return docs, sentences


def _has_sentence(sentences: list[str], i: int) -> bool:
    return 0 <= i < len(sentences) and bool(str(sentences[i]).strip())


def load_normalized(
    path: Path,
    limit: int | None = None,
    seed: int = 0,
    subset: bool = False,
    corpus: Path | None = None,
) -> Dataset:
    """Load a file in the normalized schema (see `resin.evals.data` for the corpus rules)."""
    return from_records(list(read_jsonl(path)), path, limit, seed, subset, corpus)


def from_records(
    records: list[dict[str, Any]],
    path: Path,
    limit: int | None,
    seed: int,
    subset: bool,
    corpus: Path | None,
) -> Dataset:
    """The dataset of normalized records read from `path` (a fact pool when none has paragraphs)."""
    if not records:
        raise DataError(f"{path}: no records")
    for i, r in enumerate(records, 1):
        if not r.get("question") or not r.get("id"):
            raise DataError(f"{path}: record {i} lacks 'id' or 'question'")
    uses_pool = all(not r.get("paragraphs") for r in records)
    if uses_pool:
        return load_pooled(path, records, limit, seed, subset, corpus)
    union = _Corpus()
    per_question: list[
        tuple[list[tuple[str, str]], list[tuple[str, str]], list[tuple[str, int]]]
    ] = []
    for r in records:
        keys, gold = [], []
        for p in r.get("paragraphs") or []:
            title = str(p.get("title") or p.get("pid") or "")
            sents = p.get("sentences")
            text = str(p.get("text") or "".join(sents or []))
            if not text.strip():
                continue
            key = union.add(title, text, [str(s) for s in sents] if sents else None)
            keys.append(key)
            if p.get("is_supporting"):
                gold.append(key)
        facts = [
            (str(f[0]), int(f[1]))
            for f in r.get("supporting_facts") or []
            if isinstance(f, list | tuple) and len(f) == 2 and isinstance(f[1], int)
        ]
        if not gold and facts:  # no is_supporting flags: the supporting facts' titles
            titles = {t for t, _ in facts}
            gold = [k for k in keys if k[0] in titles]
        per_question.append((keys, gold, facts))
    union.assign_ids()
    questions = []
    for r, (keys, gold, facts) in zip(records, per_question, strict=True):
        own = [union.ids[k] for k in keys]
        gold_ids = list(dict.fromkeys(union.ids[k] for k in gold))
        # gold sentences only where the paragraph carries its own sentence list to index into
        by_title = {k[0]: k for k in gold} or {k[0]: k for k in keys}
        gold_sents = [
            f"{union.ids[by_title[t]]}::{i}"
            for t, i in facts
            if t in by_title and _has_sentence(union.docs[by_title[t]][1], i)
        ]
        questions.append(record_question(r, gold_ids, gold_sents, list(dict.fromkeys(own))))
    chosen = sample(questions, limit, seed)
    own_keys = [k for q in chosen for k in q.own_keys]
    if subset:
        chosen_gold = [k for q in chosen for k in (q.gold_keys or q.own_keys)]
        every = [k for q in questions for k in q.own_keys]
        keep, extra = subset_docs(chosen_gold, every, seed, own_keys)
        note = (
            f"subset: the {len(set(chosen_gold))} gold paragraphs of the {len(chosen)} sampled questions "
            f"plus {extra} distractor paragraphs, drawn first from those questions' own non-gold "
            f"paragraphs, then from the file's other questions (seed {seed})"
        )
    else:
        keep = set(own_keys)
        note = (
            f"corpus: union of the paragraphs of the {len(chosen)} questions in the run, "
            "deduplicated by title + text"
        )
    # one paragraph = one passage: passage_chars at least the longest paragraph
    return records_dataset(records, path, "normalized", chosen, union.documents(keep), [note])
