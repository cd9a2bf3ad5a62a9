r"""Fit the hop reader's ranking on gold hops, with k-fold cross-validation: the weights resin ships.

    python -m resin.evals.fit_ranking --data ../shared/data/hotpotqa/hotpotqa_dev_300.jsonl \\
        --data ../shared/data/2wikimultihopqa/2wikimultihopqa_dev_250.jsonl \\
        --data ../shared/data/musique/musique_dev_140.jsonl --out agent/reading/hop_ranking.json

Every hop of a file in the normalized schema is one example: 2Wiki's evidence triples (subject,
relation → object), MuSiQue's decomposition (each sub-question with `#k` filled by the gold answers
before it, and its answer), and a HotpotQA question as one hop. The passages are the question's own
paragraphs, the subject's first, split into sentences as the index splits them where a record gives
only a paragraph's text, and each sentence's cosine with the hop's question is the default
embedder's, as the agent reads it. Each candidate `resin.agent.reading.hop_answer.read_hop` finds
is a row of features, labelled by whether it is the gold answer. The weights are a conditional
logit over each hop's candidates (a softmax per hop, `_fit_listwise`): what the reader needs is the
gold candidate above its rivals in the same hop, and fitting that directly beats a per-candidate
logistic regression on every set. Folds split by question, so no question is scored by weights fit
on it. The threshold is the score below which a hop is left without an answer, chosen on the folds'
predictions (`_threshold`).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from resin.agent.language.relations import AnswerType, question_type, relation_type, wh_type
from resin.agent.planning import wh_words
from resin.agent.reading.hop_answer import FEATURES, HopAnswer, Ranking, read_hop
from resin.evals.data.corpus import read_jsonl
from resin.evals.metrics import exact_match
from resin.indexes.documents import Passage, Sentence, split_sentences
from resin.indexes.embeddings import embed, make_embedder
from resin.indexes.units import entity_key

FOLDS = 5
# Share of the right answers the threshold may turn into "not found".
RIGHT_LOSS = 0.03
# L2 penalty of the listwise fit.
L2 = 1.0


@dataclass
class HopExample:
    """One gold hop: what it asks, about whom, of what type, where, and its answer."""

    dataset: str
    question_id: str
    question: str
    subject: str
    relation: str
    answer_type: AnswerType
    answers: list[str]
    passages: list[Passage]


def _passages(record: dict[str, Any]) -> list[Passage]:
    out = []
    for i, p in enumerate(record.get("paragraphs") or []):
        pid = f"{record['id']}#{i}"
        sents = p.get("sentences") or split_sentences(str(p.get("text") or ""))
        out.append(
            Passage(
                id=pid,
                doc_id=pid,
                title=str(p.get("title") or ""),
                position=0,
                text=" ".join(sents),
                sentences=tuple(Sentence(f"{pid}::{j}", s) for j, s in enumerate(sents)),
            )
        )
    return out


def _own_first(passages: list[Passage], subject: str) -> tuple[list[Passage], set[str]]:
    key = entity_key(subject)
    own = {
        p.id
        for p in passages
        if key and (entity_key(p.title) == key or entity_key(p.title).startswith(key + " "))
    }
    return sorted(passages, key=lambda p: p.id not in own), own


_ARROW = re.compile(r"^(.+?) >> (.+)$")


def hop_examples(record: dict[str, Any], dataset: str) -> Iterator[HopExample]:
    """The gold hops of one record."""
    passages = _passages(record)
    chain = record.get("chain") or {}
    base = dict(dataset=dataset, question_id=str(record["id"]), passages=passages)
    if chain.get("evidence_triples"):
        for subject, relation, obj in chain["evidence_triples"]:
            kind = relation_type(relation)
            yield HopExample(
                question=f"What is the {relation} of {subject}?",
                subject=subject,
                relation=relation,
                answer_type=kind,
                answers=[obj],
                **base,  # type: ignore[arg-type]
            )
    elif chain.get("decomposition"):
        answers: list[str] = []
        for step in chain["decomposition"]:
            text = re.sub(
                r"#(\d+)",
                lambda m: answers[int(m.group(1)) - 1] if int(m.group(1)) <= len(answers) else "",
                step["question"],
            )
            arrow = _ARROW.match(text)
            if arrow:
                subject, relation = arrow.group(1), arrow.group(2)
                question, kind = f"What is the {relation} of {subject}?", relation_type(relation)
            else:
                refs = [answers[int(r) - 1] for r in re.findall(r"#(\d+)", step["question"])]
                subject, relation, question = (refs[0] if refs else ""), text, text
                kind = question_type(wh_words(text), text)
            answers.append(step["answer"])
            yield HopExample(
                question=question,
                subject=subject,
                relation=relation,
                answer_type=kind,
                answers=[step["answer"]],
                **base,  # type: ignore[arg-type]
            )
    elif record.get("answers"):
        question = str(record["question"])
        yield HopExample(
            question=question,
            subject="",
            relation=question,
            answer_type=wh_type(wh_words(question)),
            answers=list(record["answers"]),
            **base,  # type: ignore[arg-type]
        )


class _Similarity:
    """Sentences' cosines with a question, by the default embedder, as the index reads them.

    Each distinct sentence is embedded once (a record's paragraphs serve all its hops).
    """

    def __init__(self) -> None:
        self.embedder = make_embedder()
        self.vectors: dict[str, np.ndarray] = {}

    def __call__(self, question: str, passages: list[Passage]) -> dict[str, float]:
        texts = {s.id: s.text for p in passages for s in p.sentences}
        missing = [t for t in dict.fromkeys(texts.values()) if t not in self.vectors]
        if missing:
            self.vectors.update(zip(missing, embed(self.embedder, missing), strict=True))
        query = embed(self.embedder, [question])[0]
        return {i: float(self.vectors[t] @ query) for i, t in texts.items()}


def candidates_of(example: HopExample, similarity: _Similarity) -> list[HopAnswer]:
    """The reader's candidates for a gold hop (its passages, the subject's own first)."""
    passages, own = _own_first(example.passages, example.subject)
    return read_hop(
        example.question,
        example.subject,
        example.relation,
        example.answer_type,
        passages,
        own,
        similarity=similarity(example.question, passages),
    )


def _matrix(cands: list[HopAnswer]) -> np.ndarray:
    return np.array([[c.features.get(f, 0.0) for f in FEATURES] for c in cands], dtype=float)


def _fit_listwise(hops: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """Weights maximizing each hop's softmax probability of its gold candidates (L2-penalized).

    All hops' candidates are one matrix and each hop a segment of it, so the loss and its
    gradient are a few array operations rather than a Python loop per hop.
    """
    from scipy.optimize import minimize

    x = np.vstack([h[0] for h in hops])
    gold = np.concatenate([h[1] for h in hops]).astype(float)
    sizes = np.array([len(h[1]) for h in hops])
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    segment = np.repeat(np.arange(len(hops)), sizes)

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        z = x @ w
        e = np.exp(z - np.maximum.reduceat(z, starts)[segment])
        total, right = np.add.reduceat(e, starts), np.add.reduceat(e * gold, starts)
        value = 0.5 * L2 * float(w @ w) - float(np.log(right / total + 1e-12).sum())
        grad = L2 * w + (e / total[segment] - e * gold / right[segment]) @ x
        return value, grad

    start = np.zeros(len(FEATURES))
    return np.asarray(minimize(loss, start, jac=True, method="L-BFGS-B").x)


# A gold hop, the reader's candidates for it, and which of them are right.
Labelled = tuple[HopExample, list[HopAnswer], list[bool]]


def labelled_hops(paths: list[Path]) -> list[Labelled]:
    """Every gold hop of the files (but yes/no ones), with its candidates labelled right or not."""
    examples: list[Labelled] = []
    similarity = _Similarity()
    for path in paths:
        name = path.stem
        for record in read_jsonl(path):
            for example in hop_examples(record, name):
                if example.answers[0].lower() in ("yes", "no"):
                    continue  # yes/no is decided by polarity, not by a span
                cands = candidates_of(example, similarity)
                labels = [exact_match(c.text, example.answers) > 0 for c in cands]
                examples.append((example, cands, labels))
        print(f"{name}: {sum(e[0].dataset == name for e in examples)} hops", file=sys.stderr)
    return examples


def fit_labelled(examples: list[Labelled], paths: list[Path], seed: int = 0) -> dict[str, Any]:
    """Fit and cross-validate on labelled hops (of `paths`); the report, written nowhere.

    The report is what `fit` writes to the shipped file: the features, weights, threshold, the
    `fitted` note and the folds' figures per set.
    """
    questions = sorted({(e.dataset, e.question_id) for e, _, _ in examples})
    rng = np.random.default_rng(seed)
    fold_of = {
        q: int(f) for q, f in zip(questions, rng.integers(0, FOLDS, len(questions)), strict=True)
    }

    def train(rows: list[Labelled]) -> np.ndarray:
        return _fit_listwise([(_matrix(c), np.array(lab)) for _, c, lab in rows if any(lab)])

    predicted: list[tuple[str, float, bool, bool]] = []  # dataset, top prob, top right, any right
    for fold in range(FOLDS):
        held = [e for e in examples if fold_of[(e[0].dataset, e[0].question_id)] == fold]
        model = train([e for e in examples if fold_of[(e[0].dataset, e[0].question_id)] != fold])
        for example, cands, labels in held:
            if not cands:
                predicted.append((example.dataset, 0.0, False, False))
                continue
            fold_ranking = Ranking(tuple(float(w) for w in model), threshold=0.0)
            probs = [fold_ranking.score(c.features) for c in cands]
            top = int(np.argmax(probs))
            predicted.append((example.dataset, float(probs[top]), labels[top], any(labels)))
    threshold = _threshold(predicted)
    per_set: dict[str, dict[str, float]] = {}
    for name in sorted({p[0] for p in predicted}):
        rows = [p for p in predicted if p[0] == name]
        per_set[name] = {
            "hops": len(rows),
            "cv_top1_em": round(100 * sum(p[2] for p in rows) / len(rows), 1),
            "gold_among_candidates": round(100 * sum(p[3] for p in rows) / len(rows), 1),
            "answered_at_threshold": round(
                100 * sum(p[1] >= threshold for p in rows) / len(rows), 1
            ),
        }
    final = train(examples)
    return {
        "features": list(FEATURES),
        "weights": [round(float(w), 4) for w in final],
        "threshold": round(threshold, 4),
        "fitted": f"conditional logit on {len(examples)} gold hops of "
        + ", ".join(p.name for p in paths)
        + f"; {FOLDS}-fold cross-validation by question (seed {seed})",
        "cross_validated": per_set,
        "command": "python -m resin.evals.fit_ranking " + " ".join(f"--data {p}" for p in paths),
    }


def fit_weights(paths: list[Path], seed: int = 0) -> dict[str, Any]:
    """The weights fit on these files alone, as `fit` would write them, without writing them.

    For scoring a set with weights that never saw it (`resin.evals.hop_reading` refits on the
    other sets); `labelled_hops` once and `fit_labelled` per subset does the same for several.
    """
    return fit_labelled(labelled_hops(paths), paths, seed)


def fit(paths: list[Path], out: Path, seed: int = 0) -> dict[str, Any]:
    """Fit, cross-validate and write the weights; returns the report."""
    report = fit_weights(paths, seed)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return report


def _threshold(predicted: list[tuple[str, float, bool, bool]]) -> float:
    """The probability below which a hop's best answer is dropped: "not found" instead.

    The highest one that drops at most `RIGHT_LOSS` of the folds' right answers: everything
    it drops beyond those would have been an invented answer.
    """
    ordered = sorted((p[1], p[2]) for p in predicted if p[1] > 0)
    allowed = RIGHT_LOSS * sum(right for _, right in ordered)
    lost, threshold = 0, 0.0
    for prob, right in ordered:
        lost += right
        if lost > allowed:
            break
        threshold = prob + 1e-6
    return threshold


def fit_command(
    argv: list[str] | None,
    prog: str,
    description: str | None,
    default_out: Path,
    fit_to: Callable[[list[Path], Path, int], dict[str, Any]],
) -> int:
    """The command line every fit shares: --data (repeatable), --out, --seed; prints the CV."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--data", action="append", required=True, type=Path)
    parser.add_argument("--out", type=Path, default=default_out)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    report = fit_to(args.data, args.out, args.seed)
    print(json.dumps(report["cross_validated"], indent=1))
    print(f"written: {args.out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Command line: --data (repeatable), --out."""
    return fit_command(
        argv, "python -m resin.evals.fit_ranking", __doc__, Path("agent/reading/hop_ranking.json"), fit
    )


if __name__ == "__main__":
    raise SystemExit(main())
