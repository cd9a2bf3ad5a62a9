"""BM25 in PostgreSQL: the postings of every passage as rows, scored by the in-memory formula.

A replica of a PostgreSQL index keeps no BM25 of its own: `passage_terms` holds one row per
(term, passage) with the term's count and the passage's length in terms, written by the builder
in the transaction that writes the passage. A search reads the postings of the query's terms by
the table's primary key and sums `resin.indexes.lexical.BM25`'s Okapi score in SQL, with the same
tokens (`tokenize`), k1, b and idf, so it ranks as the in-memory index does. PostgreSQL's own
full-text ranking (`ts_rank`) weighs terms otherwise than the BM25 the hybrid ranking was fit
with, and a tsvector cannot give one term's count without unpacking every lexeme.
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from psycopg import Connection, Cursor

from resin.indexes.lexical import K1, B, tokenize
from resin.indexes.pg_schema import upsert
from resin.indexes.reads import LruCache

if TYPE_CHECKING:
    from resin.indexes.pg_catalog import PgCatalog

# Terms whose document frequency a replica holds: counting a common term's postings is the
# costliest read of a search, and a generation's counts do not change.
_DF_CACHE_SIZE = 65536
# Passages a schema upgrade or a migration reads at a time to write their postings.
_FILL_BATCH = 2000
# A term's Okapi weight in one posting row `t`, its idf from the query's terms `q`.
_WEIGHT = "q.idf * t.tf * (%(k1)s + 1) / (t.tf + %(k1)s * (1 - %(b)s + %(b)s * t.length / %(mean)s))"
# The Okapi sum of `BM25.search` over the query's terms (their idf given), for the passages that
# hold one of the `among` terms. Their partial sums over the `among` terms come from those terms'
# postings alone; a passage whose partial sum plus `rest` (the most the other terms can add) is
# below the k-th partial sum cannot be in the top k, so only the others are scored in full.
_SEARCH = f"""
WITH q AS (SELECT * FROM unnest(%(terms)s::text[], %(idf)s::float8[]) AS q(term, idf)),
part AS (SELECT t.pid, sum({_WEIGHT}) AS s FROM passage_terms t JOIN q ON q.term = t.term
         WHERE t.term = ANY(%(among)s) GROUP BY t.pid),
kth AS (SELECT s FROM part ORDER BY s DESC LIMIT 1 OFFSET %(k)s - 1),
c AS (SELECT pid FROM part WHERE s + %(rest)s >= COALESCE((SELECT s FROM kth), 0) - %(slack)s)
SELECT t.pid, sum({_WEIGHT}) AS score
FROM c JOIN passage_terms t ON t.pid = c.pid AND t.term = ANY(%(terms)s) JOIN q ON q.term = t.term
GROUP BY t.pid ORDER BY score DESC, t.pid LIMIT %(k)s
"""
# Room for rounding between a partial sum and a full one, so no tie is cut.
_SLACK = 1e-9


def postings(
    passages: Iterable[tuple[str, str, str]],
) -> tuple[list[tuple[str, str, int, int]], list[tuple[str, int]]]:
    """(term, passage id, count, length) rows and (passage id, length) rows of passages.

    A passage is (id, title, text); BM25 reads the title then the text, as `IndexReads` does.
    """
    rows, lengths = [], []
    for pid, title, text in passages:
        tokens = tokenize(f"{title} {text}")
        rows += [(term, pid, tf, len(tokens)) for term, tf in Counter(tokens).items()]
        lengths.append((pid, len(tokens)))
    return rows, lengths


def write_terms(cur: Cursor[Any], passages: Iterable[tuple[str, str, str]]) -> None:
    """Write the postings of (passage id, title, text) triples, replacing theirs."""
    rows, lengths = postings(passages)
    if lengths:
        cur.executemany(upsert("passage_lengths", "pid, length"), lengths)
    if rows:
        columns = list(zip(*rows, strict=True))
        cur.execute(
            "INSERT INTO passage_terms (term, pid, tf, length) SELECT * FROM "
            "unnest(%s::text[], %s::text[], %s::int[], %s::int[]) ON CONFLICT (term, pid) "
            "DO UPDATE SET tf=EXCLUDED.tf, length=EXCLUDED.length",
            [list(c) for c in columns],
        )


def fill_terms(conn: Connection[Any]) -> None:
    """Write every stored passage's postings (a schema upgrade, a migration), a batch at a time."""
    last = ""
    while True:
        rows = conn.execute(
            "SELECT pid, title, text FROM passages WHERE pid > %s ORDER BY pid LIMIT %s",
            (last, _FILL_BATCH),
        ).fetchall()
        if not rows:
            return
        with conn.cursor() as cur:
            write_terms(cur, rows)
        last = rows[-1][0]


class PgLexical:
    """BM25 over a PostgreSQL index's postings, for one generation (its corpus figures once).

    The generation's figures and its terms' document frequencies are read once and held.
    """

    def __init__(self, catalog: PgCatalog) -> None:
        self.catalog = catalog
        self._figures: tuple[int, float] | None = None
        self._df: LruCache[str, int] = LruCache(_DF_CACHE_SIZE)
        self._lock = threading.Lock()

    def figures(self) -> tuple[int, float]:
        """How many passages the index holds and their mean length in terms.

        A passage with no content word has no posting but counts, as in the in-memory BM25.
        """
        with self._lock:
            if self._figures is None:
                with self.catalog.connection() as conn:
                    row = conn.execute(
                        "SELECT (SELECT count(*) FROM passages), "
                        "(SELECT COALESCE(sum(length), 0) FROM passage_lengths)"
                    ).fetchone()
                count, total = (int(row[0]), int(row[1])) if row else (0, 0)
                self._figures = count, total / count if count else 0.0
            return self._figures

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        """The `k` best (passage id, BM25 score) pairs for the query, best first (ties by id).

        Exact, as MaxScore is: the passages holding the rarest terms are scored in full first;
        a passage holding none of them scores at most what the other terms can add (each less
        than idf·(k1+1)), so when that bound is below the k-th score found, no other passage
        can enter and the postings of the common terms are never all read.
        """
        terms = sorted(set(tokenize(query)))
        n, mean = self.figures()
        if not terms or not n:
            return []
        with self.catalog.connection() as conn:

            def count(missing: list[str]) -> dict[str, int]:
                found = dict(
                    conn.execute(
                        "SELECT term, count(*) FROM passage_terms WHERE term = ANY(%s) "
                        "GROUP BY term",
                        (missing,),
                    ).fetchall()
                )
                return {t: int(found.get(t, 0)) for t in missing}

            df = {t: c for t, c in self._df.through(terms, count).items() if c}
            idf = {t: math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in df}
            rarest = sorted(idf, key=lambda t: (-idf[t], t))
            rows: list[tuple[str, float]] = []
            for cut in range(1, len(rarest) + 1):
                bound = sum(idf[t] * (K1 + 1) for t in rarest[cut:])
                rows = conn.execute(
                    _SEARCH,
                    {
                        "terms": list(idf),
                        "idf": list(idf.values()),
                        "among": rarest[:cut],
                        "rest": bound,
                        "slack": _SLACK,
                        "k1": K1,
                        "b": B,
                        "mean": mean or 1.0,
                        "k": k,
                    },
                ).fetchall()
                if len(rows) == k and bound < rows[-1][1]:
                    break
        return [(pid, float(score)) for pid, score in rows if score > 0]


def forget_terms(cur: Cursor[Any], pids: str, params: Sequence[Any]) -> None:
    """Drop the postings of the passages the subquery or array `pids` names."""
    for table in ("passage_terms", "passage_lengths"):
        cur.execute(f"DELETE FROM {table} WHERE pid IN ({pids})", params)
