r"""Fit the two weights of the passage pair (`resin.tools.pairs`) on the dev sets, cross-validated.

    python -m resin.evals.fit_pairs --data ../shared/data/hotpotqa/hotpotqa_dev_300.jsonl \\
        --data ../shared/data/2wikimultihopqa/2wikimultihopqa_dev_250.jsonl \\
        --data ../shared/data/musique/musique_dev_140.jsonl --out tools/pair_weights.json

Each question of a file in the normalized schema is one example: its own paragraphs are the
pool (as the index's nearest passages are at run time), embedded as the index embeds passages
("title: text", MiniLM); a paragraph names another when the other's title is written in its
text, and the question names a title it writes. The weights are the grid point whose best pairs
hold the most gold paragraphs (recall@2, each set weighing the same); folds split by question,
so each set's cross-validated recall@2 is scored by weights fit without its questions.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from resin.evals.data.corpus import read_jsonl
from resin.evals.fit_ranking import FOLDS, fit_command
from resin.indexes.embeddings import embed, make_embedder
from resin.indexes.units import entity_key
from resin.tools.pairs import PairWeights, best_pair

GRID_LINK = tuple(round(0.05 * i, 2) for i in range(13))
GRID_NAMED = tuple(round(0.05 * i, 2) for i in range(21))
# The longest name `resin.tools.entities.named_in` looks for in a question.
_NAME_WORDS = 6


@dataclass
class PairExample:
    """One question's pool: similarities, titles, what each paragraph names, gold paragraphs."""

    dataset: str
    question_id: str
    similarity: dict[str, float]
    title_key: dict[str, str]
    mentions: dict[str, set[str]]
    named: set[str]
    gold: set[str]

    def recall(self, weights: PairWeights) -> float:
        """Share of the gold paragraphs in the best pair under these weights."""
        pair = best_pair(self.similarity, self.title_key, self.mentions, self.named, weights)
        return len(self.gold & set(pair or ())) / len(self.gold)

    def dense(self) -> float:
        """Share of the gold paragraphs in the two most similar (no weights)."""
        return self.recall(PairWeights(0.0, 0.0))


def pair_example(record: dict[str, Any], dataset: str) -> PairExample | None:
    """A question's example, or None when it has no gold paragraph or fewer than two."""
    paragraphs = record.get("paragraphs") or []
    ids = [f"{record['id']}#{i}" for i in range(len(paragraphs))]
    gold = {pid for pid, p in zip(ids, paragraphs, strict=True) if p.get("is_supporting")}
    if not gold or len(ids) < 2:
        return None
    texts = [f"{p.get('title') or ''}: {p.get('text') or ''}" for p in paragraphs]
    vectors = embed(make_embedder(), [str(record["question"]), *texts])
    title_key = {}
    bodies = {}
    for pid, paragraph in zip(ids, paragraphs, strict=True):
        title_key[pid] = entity_key(str(paragraph.get("title") or ""))
        bodies[pid] = f" {entity_key(str(paragraph.get('text') or ''))} "
    mentions = {
        a: {
            title_key[b]
            for b in ids
            if b != a and title_key[b] and f" {title_key[b]} " in bodies[a]
        }
        for a in ids
    }
    asked = f" {entity_key(str(record['question']))} "
    named = {
        key
        for key in title_key.values()
        if len(key) >= 3 and len(key.split()) <= _NAME_WORDS and f" {key} " in asked
    }
    return PairExample(
        dataset=dataset,
        question_id=str(record["id"]),
        similarity=dict(zip(ids, (vectors[1:] @ vectors[0]).tolist(), strict=True)),
        title_key=title_key,
        mentions=mentions,
        named=named,
        gold=gold,
    )


def _best(examples: list[PairExample]) -> PairWeights:
    """The grid point with the highest recall@2, each set's mean weighing the same."""
    sets = sorted({e.dataset for e in examples})
    best: tuple[float, PairWeights] | None = None
    for link in GRID_LINK:
        for named in GRID_NAMED:
            weights = PairWeights(link, named)
            score = float(
                np.mean(
                    [np.mean([e.recall(weights) for e in examples if e.dataset == s]) for s in sets]
                )
            )
            if best is None or score > best[0]:
                best = (score, weights)
    assert best is not None
    return best[1]


def fit(paths: list[Path], out: Path, seed: int = 0) -> dict[str, Any]:
    """Fit, cross-validate and write the weights; returns the report."""
    examples: list[PairExample] = []
    for path in paths:
        found = [e for r in read_jsonl(path) if (e := pair_example(r, path.stem))]
        examples += found
        print(f"{path.stem}: {len(found)} questions", file=sys.stderr)
    questions = sorted({(e.dataset, e.question_id) for e in examples})
    rng = np.random.default_rng(seed)
    fold_of = dict(zip(questions, rng.integers(0, FOLDS, len(questions)).tolist(), strict=True))
    held_out: dict[str, list[float]] = {}
    for fold in range(FOLDS):
        weights = _best([e for e in examples if fold_of[(e.dataset, e.question_id)] != fold])
        for e in examples:
            if fold_of[(e.dataset, e.question_id)] == fold:
                held_out.setdefault(e.dataset, []).append(e.recall(weights))
    final = _best(examples)
    report = {
        "link": final.link,
        "named": final.named,
        "fitted": f"grid search on {len(examples)} questions of "
        + ", ".join(p.name for p in paths)
        + f"; {FOLDS}-fold cross-validation by question (seed {seed})",
        "cross_validated": {
            name: {
                "questions": len(scores),
                "pair_recall_at_2": round(100 * float(np.mean(scores)), 1),
                "dense_recall_at_2": round(
                    100 * float(np.mean([e.dense() for e in examples if e.dataset == name])), 1
                ),
            }
            for name, scores in sorted(held_out.items())
        },
        "command": "python -m resin.evals.fit_pairs " + " ".join(f"--data {p}" for p in paths),
    }
    out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return report


def main(argv: list[str] | None = None) -> int:
    """Command line: --data (repeatable), --out."""
    return fit_command(
        argv, "python -m resin.evals.fit_pairs", __doc__, Path("tools/pair_weights.json"), fit
    )


if __name__ == "__main__":
    raise SystemExit(main())
