"""Answer, retrieval and cost metrics (see evals/README.md for the exact definitions).

`normalize_answer`, `exact_match` and `f1` follow HotpotQA's official evaluation script
(hotpot_evaluate_v1.py): lower-case, drop punctuation, drop the articles a/an/the, collapse
whitespace; F1 is 0 when either side normalizes to yes/no/noanswer and the two differ.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Iterable, Sequence

import numpy as np

# The k of the recall@k every run scores and reports.
RECALL_KS = (2, 5, 10)

# Citation labels the answer prompts ask for: [1], [2, 3], [p3f2a...]. Removed before scoring.
_CITATION = re.compile(r"\s*\[(?:\d{1,3}(?:\s*,\s*\d{1,3})*|p[0-9a-f]{3,}[^\]]{0,40})\]")
_PUNCTUATION = frozenset(string.punctuation)


def normalize_answer(text: str) -> str:
    """HotpotQA's official answer normalization."""
    text = text.lower()
    text = "".join(ch for ch in text if ch not in _PUNCTUATION)
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def strip_citations(answer: str) -> str:
    """The answer without its citation labels."""
    return " ".join(_CITATION.sub("", answer).split())


def f1_parts(prediction: str, truth: str) -> tuple[float, float, float]:
    """(F1, precision, recall) of one prediction against one reference (official rules)."""
    pred, gold = normalize_answer(prediction), normalize_answer(truth)
    special = ("yes", "no", "noanswer")
    if (pred in special or gold in special) and pred != gold:
        return 0.0, 0.0, 0.0
    common = Counter(pred.split()) & Counter(gold.split())
    same = sum(common.values())
    if same == 0:
        return 0.0, 0.0, 0.0
    precision = same / len(pred.split())
    recall = same / len(gold.split())
    return 2 * precision * recall / (precision + recall), precision, recall


def exact_match(prediction: str, answers: Sequence[str]) -> float:
    """1.0 when the normalized prediction equals any normalized reference."""
    pred = normalize_answer(prediction)
    return float(any(pred == normalize_answer(a) for a in answers))


def f1(prediction: str, answers: Sequence[str]) -> float:
    """Best official token F1 over the references."""
    return max((f1_parts(prediction, a)[0] for a in answers), default=0.0)


def contains_answer(prediction: str, answers: Sequence[str]) -> float:
    """1.0 when a normalized reference occurs, as whole words, in the normalized prediction."""
    pred = f" {normalize_answer(prediction)} "
    return float(any(g and f" {g} " in pred for a in answers if (g := normalize_answer(a))))


def closest_choice(prediction: str, choices: Sequence[str]) -> int | None:
    """The choice with the highest token F1 against the free answer (first on ties; None if all 0)."""
    scores = [f1_parts(prediction, c)[0] for c in choices]
    best = max(scores, default=0.0)
    return scores.index(best) if best > 0 else None


def choice_correct(prediction: str, choices: Sequence[str], answer: int | None) -> float:
    """1.0 when the choice closest to the free answer is the right one."""
    return float(answer is not None and closest_choice(prediction, choices) == answer)


def recall_at_k(ranked_keys: Sequence[str], gold: Iterable[str], k: int) -> float:
    """Share of the gold keys among the first k ranked keys (duplicates count once)."""
    gold_set = set(gold)
    if not gold_set:
        return 0.0
    return len(gold_set & set(ranked_keys[:k])) / len(gold_set)


def all_gold_at_k(ranked_keys: Sequence[str], gold: Iterable[str], k: int) -> float:
    """1.0 when every gold key is among the first k ranked keys."""
    gold_set = set(gold)
    return float(bool(gold_set) and gold_set <= set(ranked_keys[:k]))


def context_recall(context_sentence_ids: Iterable[str], gold_sentence_ids: Iterable[str]) -> float:
    """Share of the gold sentences present in the context handed to the reader."""
    gold = set(gold_sentence_ids)
    if not gold:
        return 0.0
    return len(gold & set(context_sentence_ids)) / len(gold)


def cosine(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> float:
    """Cosine similarity of two vectors (0 when either is zero)."""
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    denom = float(np.linalg.norm(x) * np.linalg.norm(y))
    return float(x @ y / denom) if denom else 0.0


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th percentile with linear interpolation (numpy's default); None for no values."""
    return float(np.percentile(np.asarray(values, dtype=np.float64), q)) if len(values) else None


def mean(values: Sequence[float]) -> float | None:
    """Arithmetic mean; None for no values."""
    return float(sum(values) / len(values)) if values else None
