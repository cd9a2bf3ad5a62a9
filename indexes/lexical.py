"""BM25 over passages with an inverted index: query cost grows with postings, not with the corpus."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence

import numpy as np

from resin.indexes.units import normalize

# Words a search ignores (BM25, the planner's and the answer ranking's word overlaps).
STOPWORDS = frozenset(
    """a an the of in on at to for by with and or is are was were be been being it its this that
    these those as from what which who whom whose when where why how did does do has have had
    not no than then there their they he she his her him i you we our your into about""".split()
)
# The fewer words grounding ignores when it checks that a sentence writes a name: question words,
# pronouns and negations are part of a name or a claim there. Part of GROUNDING_VERSION.
GROUNDING_STOPWORDS = frozenset(
    "a an the of in on at to for by with and or is are was were be been it its this that as from".split()
)


def tokenize(text: str, stopwords: frozenset[str] = STOPWORDS) -> list[str]:
    """Normalized content words: the words of `normalize(text)` not in `stopwords`."""
    return [t for t in normalize(text).split() if t not in stopwords]


# Letters a stem keeps.
STEM_CHARS = 5


def stems(text: str) -> set[str]:
    """Content words cut to five letters: designer/designed, founded/founder meet."""
    return {t[:STEM_CHARS] for t in tokenize(text)}


def word_runs(words: Sequence[str], longest: int) -> Iterator[str]:
    """Every run of up to `longest` consecutive words, joined: longest first, left to right.

    How names are found in text: the caller normalizes the words its own way.
    """
    for size in range(min(longest, len(words)), 0, -1):
        for i in range(len(words) - size + 1):
            yield " ".join(words[i : i + size])


# Okapi BM25's parameters, here and in PostgreSQL's postings (`pg_lexical`).
K1 = 1.5
B = 0.75


class BM25:
    """Okapi BM25 (k1=K1, b=B) over (id, text) pairs."""

    def __init__(self, docs: Iterable[tuple[str, str]], k1: float = K1, b: float = B) -> None:
        """Index the documents."""
        self.ids: list[str] = []
        lengths: list[int] = []
        postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for i, (doc_id, text) in enumerate(docs):
            tokens = tokenize(text)
            self.ids.append(doc_id)
            lengths.append(len(tokens))
            for term, tf in Counter(tokens).items():
                postings[term].append((i, tf))
        n = len(self.ids)
        self._len = np.asarray(lengths, dtype=np.float32)
        avg = float(self._len.mean()) if n else 0.0
        self._norm = k1 * (1 - b + b * self._len / avg) if n and avg else self._len
        self._k1 = k1
        self._postings = {
            term: (
                np.fromiter((d for d, _ in p), np.int64, len(p)),
                np.fromiter((t for _, t in p), np.float32, len(p)),
                math.log(1 + (n - len(p) + 0.5) / (len(p) + 0.5)),
            )
            for term, p in postings.items()
        }

    def __len__(self) -> int:
        return len(self.ids)

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        """The k best (id, score) pairs for the query, best first."""
        scores = np.zeros(len(self.ids), dtype=np.float32)
        for term in set(tokenize(query)):
            hit = self._postings.get(term)
            if hit is None:
                continue
            docs, tf, idf = hit
            scores[docs] += idf * tf * (self._k1 + 1) / (tf + self._norm[docs])
        if not len(scores):
            return []
        top = np.argpartition(-scores, min(k, len(scores) - 1))[:k]
        ranked = sorted(top, key=lambda i: -scores[i])
        return [(self.ids[i], float(scores[i])) for i in ranked if scores[i] > 0]
