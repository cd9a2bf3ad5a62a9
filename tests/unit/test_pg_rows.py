"""The rows a PostgreSQL index's replicas read by, as the builder writes them (no database)."""

from __future__ import annotations

from collections import Counter

import pytest

pytest.importorskip("psycopg")

from resin.indexes.lexical import BM25, tokenize  # noqa: E402
from resin.indexes.pg_lexical import postings  # noqa: E402
from resin.indexes.pg_reads import name_rows  # noqa: E402

PASSAGES = [
    ("p1", "Orrin Dam", "The Orrin Dam was designed by Hessa Varn. The dam holds the river."),
    ("p2", "Hessa Varn", "Hessa Varn was born in the port of Caldmere."),
    ("p3", "Empty", "of the and"),
]


def test_postings_are_the_terms_bm25_counts_and_each_passage_length():
    rows, lengths = postings(PASSAGES)
    for pid, title, text in PASSAGES:
        tokens = tokenize(f"{title} {text}")
        assert {(t, tf) for t, p, tf, _ in rows if p == pid} == set(Counter(tokens).items())
        assert {n for _, p, _, n in rows if p == pid} <= {len(tokens)}
        assert (pid, len(tokens)) in lengths
    assert ("dam", "p1", 3, 10) in rows  # the title's word counts too
    assert [r for r in rows if r[1] == "p3"] == [("empty", "p3", 1, 1)]


def test_bm25_from_the_postings_equals_the_in_memory_index():
    """The sum `pg_lexical` runs in SQL, over the rows it reads, gives BM25's scores."""
    import math

    from resin.indexes.lexical import K1, B

    rows, lengths = postings(PASSAGES)
    n, mean = len(lengths), sum(length for _, length in lengths) / len(lengths)
    query = "Who designed the Orrin Dam on the river?"
    terms = set(tokenize(query))
    df = Counter(t for t, *_ in rows if t in terms)
    scores: Counter[str] = Counter()
    for term, pid, tf, length in rows:
        if term in terms:
            idf = math.log(1 + (n - df[term] + 0.5) / (df[term] + 0.5))
            scores[pid] += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / mean))
    memory = BM25((pid, f"{title} {text}") for pid, title, text in PASSAGES).search(query, 5)
    assert [p for p, _ in memory] == [p for p, _ in scores.most_common()]
    assert all(abs(s - scores[p]) < 1e-4 for p, s in memory)


def test_name_rows_are_each_key_once_and_skip_names_with_none():
    rows = name_rows("n1", ["The Orrin Dam", "Orrin dam's", "Orrin Dam", "!!"])
    assert rows == [("orrin dam", "n1")]
