"""Scoring one outcome against the dataset: the run's passages mapped back to gold keys.

The index cuts documents into passages and sentences with its own ids; `Corpus` maps them back to
the dataset's documents and sentences so every metric counts in the dataset's terms.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from resin.evals import metrics
from resin.evals.data import Dataset, Question, sentence_index
from resin.evals.gold_plans import plan_accuracy
from resin.evals.systems import Outcome
from resin.indexes.documents import Passage, make_passages


@dataclass
class Corpus:
    """The run's passages, as the index holds them, and their maps back to the dataset."""

    passages: list[Passage]
    doc_of: dict[str, str]
    sentences_of: dict[str, list[str]]
    dataset_sentence: dict[str, str]


def corpus_maps(data: Dataset, passage_chars: int) -> Corpus:
    """Passages as the index cut them, with passage → document and index → dataset sentence maps."""
    passages = [p for d in data.documents for p in make_passages(d, passage_chars)]
    return Corpus(
        passages=passages,
        doc_of={p.id: p.doc_id for p in passages},
        sentences_of={p.id: [s.id for s in p.sentences] for p in passages},
        dataset_sentence=sentence_index(data.documents, data.doc_sentences, passage_chars),
    )


def score(
    q: Question, out: Outcome, corpus: Corpus, embedder: Any, retrieves: bool
) -> dict[str, Any]:
    """The per-question metrics of one outcome."""
    answer = metrics.strip_citations(out.answer)
    row: dict[str, Any] = {
        "em": metrics.exact_match(answer, q.answers) if q.answers else None,
        "f1": metrics.f1(answer, q.answers) if q.answers else None,
        "acc": metrics.contains_answer(answer, q.answers) if q.answers else None,
        "choice": (
            metrics.choice_correct(answer, q.choices, q.answer_choice) if q.choices else None
        ),
    }
    keys = [corpus.doc_of.get(pid, pid) for pid in out.ranked]
    keys = list(dict.fromkeys(keys))
    for k in metrics.RECALL_KS:
        has = retrieves and bool(q.gold_keys)
        row[f"recall@{k}"] = metrics.recall_at_k(keys, q.gold_keys, k) if has else None
        row[f"all_gold@{k}"] = metrics.all_gold_at_k(keys, q.gold_keys, k) if has else None
    if retrieves and q.gold_sentence_ids:
        shown = [s for pid in out.context_passages for s in corpus.sentences_of.get(pid, [])]
        shown += out.context_sentences
        mapped = {corpus.dataset_sentence[s] for s in shown if s in corpus.dataset_sentence}
        row["context_recall"] = metrics.context_recall(mapped, q.gold_sentence_ids)
    else:
        row["context_recall"] = None
    # What a person reads: the short answer and its supporting sentences, not the Sources list
    # that quotes them again; the metric for long-form gold answers (HolisQA's explanations).
    read = str(out.trace.get("message") or "").split("\nSources:")[0] if answer else ""
    read = " ".join(metrics.strip_citations(read).replace("\n- ", " ").split())
    row["read_f1"] = metrics.f1(read, q.answers) if q.answers else None
    if out.trace.get("plan") is not None:
        row.update(plan_accuracy(out.trace["plan"], q.chain))
    row["answer_words"] = len(answer.split())
    row["looped"] = any("repeated itself" in n for n in out.trace.get("notes") or [])
    if answer:
        vectors = embedder.embed_documents([q.question, answer])
        row["relevancy"] = metrics.cosine(vectors[0], vectors[1])
    else:
        row["relevancy"] = 0.0
    return row
