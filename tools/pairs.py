"""A question's passages chosen as a pair: the two it most likely needs, first.

A two-hop question is answered by two passages: the one about the entity it names, and the one
about the bridge entity that passage names. The second often shares few words with the question,
so the two best passages by meaning alone are rarely both of them. A pair is scored as the sum of
its passages' similarities to the question, plus a weight when one passage names the other's
title (the bridge the question crosses) and a weight for each title the question itself names.
The two weights are fit on the shared dev sets (`evals/fit_pairs.py`, `tools/pair_weights.json`).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from pathlib import Path

from resin.indexes.reads import IndexReads
from resin.indexes.units import entity_key
from resin.tools.entities import named_in
from resin.tools.retrieval import PassageHit, passage_hits

WEIGHTS_FILE = Path(__file__).with_name("pair_weights.json")
# The pair is drawn from the question's nearest passages by meaning...
POOL = 10
# ...and the documents titled by the names the nearest of them write.
LINKED_FROM = 5


@dataclass(frozen=True)
class PairWeights:
    """What a link between the two passages and a title the question names add to a pair."""

    link: float
    named: float


@cache
def pair_weights() -> PairWeights:
    """The shipped weights (`evals/fit_pairs.py` writes them)."""
    data = json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))
    return PairWeights(float(data["link"]), float(data["named"]))


def best_pair(
    similarity: Mapping[str, float],
    title_key: Mapping[str, str],
    mentions: Mapping[str, Collection[str]],
    named: Collection[str],
    weights: PairWeights,
) -> tuple[str, str] | None:
    """The best-scoring pair of passage ids, the more similar first (None for fewer than two)."""
    best: tuple[float, tuple[str, str]] | None = None
    for a, b in combinations(similarity, 2):
        linked = title_key[b] in mentions[a] or title_key[a] in mentions[b]
        titled = (title_key[a] in named) + (title_key[b] in named)
        score = similarity[a] + similarity[b] + weights.link * linked + weights.named * titled
        if best is None or score > best[0]:
            best = (score, (a, b) if similarity[a] >= similarity[b] else (b, a))
    return best[1] if best else None


def paired_passages(index: IndexReads, query: str, hits: list[PassageHit]) -> list[PassageHit]:
    """The question's search hits with its best pair moved to the front (as many as before)."""
    pool = [pid for pid, _ in index.search_passages(query, POOL)]
    for pid in pool[:LINKED_FROM]:
        for key in index.mentioned_in(pid):
            pool.extend(index.passages_titled(key)[:1])
    ids, vectors = index.passage_vectors(list(dict.fromkeys(pool)))
    # a vector the catalog does not record (a build cut short) is no passage to read
    titles = {p.id: p.title for p in index.passages(ids)}
    scores = (vectors @ index.query_vector(query)).tolist() if ids else []
    similarity = {pid: s for pid, s in zip(ids, scores, strict=True) if pid in titles}
    title_key = {pid: entity_key(titles[pid]) for pid in similarity}
    mentions = {pid: set(index.mentioned_in(pid)) for pid in similarity}
    named = set(named_in(index, query))
    pair = best_pair(similarity, title_key, mentions, named, pair_weights())
    if pair is None:
        return hits
    lead = passage_hits(index, [(pid, similarity[pid]) for pid in pair], "fused")
    return (lead + [h for h in hits if h.passage_id not in pair])[: len(hits)]
