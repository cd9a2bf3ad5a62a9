"""Fields of a normalized-schema record, read the same way by the paragraph and fact-pool loaders.

A record becomes a `Question` here, and a corpus of one paragraph (or fact) per passage becomes
its `Dataset`, so `normalized.py` and `pooled.py` share them instead of writing them twice
(HolisQA's `qa.jsonl` names its answers the same way: `answers_of`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from resin.evals.data.corpus import clean
from resin.evals.data.dataset import Dataset, Question
from resin.indexes.documents import DEFAULT_PASSAGE_CHARS, Document


def choices_of(record: dict[str, Any]) -> tuple[list[str] | None, int | None]:
    """The record's choice texts and the index of the right one (None, None without choices)."""
    raw = record.get("choices")
    if not raw:
        return None, None
    texts, labels = [], []
    for i, choice in enumerate(raw):
        if isinstance(choice, dict):
            texts.append(str(choice.get("text", "")))
            labels.append(str(choice.get("label", chr(ord("A") + i))))
        else:
            texts.append(str(choice))
            labels.append(chr(ord("A") + i))
    key = record.get("answer_key")
    answer = labels.index(str(key)) if key is not None and str(key) in labels else None
    if answer is None:
        answers = [clean(a).lower() for a in record.get("answers") or []]
        answer = next((i for i, t in enumerate(texts) if clean(t).lower() in answers), None)
    return texts, answer


def answers_of(record: dict[str, Any]) -> list[str]:
    """The record's answers (`answers`, else `answer`), as strings."""
    raw = record.get("answers")
    if raw is None:
        raw = record.get("answer")
    if raw is None:
        return []
    return [str(a) for a in (raw if isinstance(raw, list) else [raw])]


def record_question(
    record: dict[str, Any], gold_keys: list[str], gold_sentence_ids: list[str], own_keys: list[str]
) -> Question:
    """The record as a `Question` with the gold evidence its loader worked out."""
    choices, answer = choices_of(record)
    return Question(
        id=str(record["id"]),
        question=clean(record["question"]),
        answers=answers_of(record),
        choices=choices,
        answer_choice=answer,
        gold_keys=gold_keys,
        gold_sentence_ids=gold_sentence_ids,
        type=str(record.get("type") or ""),
        own_keys=own_keys,
        chain=dict(record.get("chain") or {}),
    )


# A paragraph corpus keeps one paragraph per passage (the unit HippoRAG-style recall counts), so
# passage_chars is at least the longest paragraph; HolisQA articles are cut into sentence-aligned
# passages of the index's default size.
def records_dataset(
    records: list[dict[str, Any]],
    path: Path,
    format: str,
    questions: list[Question],
    documents: tuple[list[Document], dict[str, list[str]]],
    notes: list[str],
) -> Dataset:
    """The dataset of these records, one document per passage."""
    docs, sentences = documents
    longest = max((len(d.text) for d in docs), default=0)
    return Dataset(
        name=str(records[0].get("dataset") or path.stem),
        path=str(path),
        format=format,
        questions=questions,
        documents=docs,
        passage_chars=max(DEFAULT_PASSAGE_CHARS, longest + 1),
        doc_sentences=sentences,
        notes=notes,
    )
