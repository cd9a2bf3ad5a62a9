"""The build's bookkeeping in PostgreSQL: the `CatalogStore` that several machines share.

The same tables and the same semantics as the SQLite `catalog.Catalog`: each write is one
transaction, so a builder killed at any point leaves every call done or not done, and a build
batch (`batch`) is one transaction with the graph's save, so readers see whole batches only. Text keys are
compared in the "C" collation, so every ORDER BY gives SQLite's byte order whatever the
database's locale. The tables live in the `resin` schema (`pg_schema`), created on first open.
Its connections (`pg_schema.PgRows`) and its mentions (`pg_mentions.PgMentions`) are modules of
their own.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from resin.indexes.base import DocumentRecord
from resin.indexes.catalog_rows import (
    INDEXED_ROWS,
    CatalogFigures,
    passage_of_row,
    record_of_row,
    row_of_passage,
)
from resin.indexes.documents import Passage
from resin.indexes.pg_lexical import forget_terms, write_terms
from resin.indexes.pg_mentions import PgMentions
from resin.indexes.pg_schema import kinds_condition, sql_limit, upsert

_DOC_COLUMNS = "doc_id, hash, title, source, extract_key, complete, content"
_EXTRACTION_COLUMNS = (
    "key, pid, units, proposed, ungrounded, invalid, prompt_tokens, completion_tokens"
)


class PgCatalog(PgMentions, CatalogFigures):
    """The catalog in PostgreSQL, over a connection pool."""

    # documents ------------------------------------------------------------------------------
    def document(self, doc_id: str) -> DocumentRecord | None:
        """The record of one document, or None."""
        row = self._one(f"SELECT {_DOC_COLUMNS} FROM documents WHERE doc_id=%s", (doc_id,))
        return record_of_row(row) if row else None

    def documents(self) -> list[DocumentRecord]:
        """Every document record, by id."""
        rows = self._rows(f"SELECT {_DOC_COLUMNS} FROM documents ORDER BY doc_id")
        return [record_of_row(r) for r in rows]

    def records(self, doc_ids: Sequence[str]) -> dict[str, DocumentRecord]:
        """The records of those of `doc_ids` that are indexed, by id."""
        rows = self._rows(
            f"SELECT {_DOC_COLUMNS} FROM documents WHERE doc_id = ANY(%s)", (list(doc_ids),)
        )
        return {r[0]: record_of_row(r) for r in rows}

    def owners(self, contents: Sequence[str]) -> dict[str, str]:
        """Content hash → the first id (by id) indexed with it, for those of `contents` indexed."""
        rows = self._rows(
            "SELECT DISTINCT ON (content) content, doc_id FROM documents "
            "WHERE content = ANY(%s) ORDER BY content, doc_id",
            (list(contents),),
        )
        return {content: doc_id for content, doc_id in rows}

    def put_documents(self, documents: Sequence[tuple[DocumentRecord, list[Passage]]]) -> None:
        """Record documents and their passages (replacing earlier versions), in one transaction.

        A handful of statements for the whole list, not a handful per document.
        """
        ids = [record.doc_id for record, _ in documents]
        with self.connection() as conn, conn.cursor() as cur:
            forget_terms(cur, "SELECT pid FROM passages WHERE doc_id = ANY(%s)", (ids,))
            cur.execute("DELETE FROM passages WHERE doc_id = ANY(%s)", (ids,))
            cur.executemany(
                upsert("documents", _DOC_COLUMNS),
                [
                    (
                        r.doc_id,
                        r.hash,
                        r.title,
                        r.source,
                        r.extract_key,
                        r.complete,
                        r.content or None,
                    )
                    for r, _ in documents
                ],
            )
            passages = [p for _, held in documents for p in held]
            if passages:
                cur.executemany(
                    upsert("passages", "pid, doc_id, position, title, text, sentences, title_key"),
                    [row_of_passage(p) for p in passages],
                )
                write_terms(cur, [(p.id, p.title, p.text) for p in passages])

    def mark_complete(self, flags: Iterable[tuple[str, bool]]) -> None:
        """Record, per (document id, flag), whether every passage of the document was extracted."""
        self._many("UPDATE documents SET complete=%s WHERE doc_id=%s", [(c, d) for d, c in flags])

    def delete_document(self, doc_id: str) -> None:
        """Forget a document, its passages, units and mentions, in one transaction."""
        with self.connection() as conn, conn.cursor() as cur:
            forget_terms(cur, "SELECT pid FROM passages WHERE doc_id=%s", (doc_id,))
            conn.execute(
                "DELETE FROM mentions WHERE pid IN (SELECT pid FROM passages WHERE doc_id=%s)",
                (doc_id,),
            )
            for table in ("units", "passages", "documents"):
                conn.execute(f"DELETE FROM {table} WHERE doc_id=%s", (doc_id,))

    # passages -------------------------------------------------------------------------------
    def passages(self, pids: Iterable[str]) -> list[Passage]:
        """Passages by id, in the order asked (unknown ids are skipped)."""
        wanted = list(dict.fromkeys(pids))
        rows = self._rows("SELECT * FROM passages WHERE pid = ANY(%s)", (wanted,))
        found = {r[0]: passage_of_row(r) for r in rows}
        return [found[p] for p in wanted if p in found]

    def doc_passage_ids(self, doc_id: str) -> list[str]:
        """Ids of a document's passages in reading order."""
        rows = self._rows("SELECT pid FROM passages WHERE doc_id=%s ORDER BY position", (doc_id,))
        return [r[0] for r in rows]

    def passage_rows(self) -> list[tuple[str, str, int]]:
        """(passage id, document id, position) of every passage, in no set order."""
        return [
            (r[0], r[1], r[2]) for r in self._rows("SELECT pid, doc_id, position FROM passages")
        ]

    def delete_passages(self, pids: Sequence[str]) -> None:
        """Forget passages and their mentions (their documents' records stay)."""
        with self.connection() as conn, conn.cursor() as cur:
            forget_terms(cur, "SELECT unnest(%s::text[])", (list(pids),))
            conn.execute("DELETE FROM mentions WHERE pid = ANY(%s)", (list(pids),))
            conn.execute("DELETE FROM passages WHERE pid = ANY(%s)", (list(pids),))

    def iter_passages(self, batch: int = 2000) -> Iterator[Passage]:
        """Every stored passage, by document and position, `batch` rows at a time."""
        with self.connection() as conn, conn.cursor(name="resin_passages") as cur:
            cur.itersize = batch
            cur.execute("SELECT * FROM passages ORDER BY doc_id, position")
            yield from (passage_of_row(r) for r in cur)

    def titled(self, title_key: str) -> list[str]:
        """Passages of the documents whose title, as an entity key, is `title_key`."""
        rows = self._rows(
            "SELECT pid FROM passages WHERE title_key=%s ORDER BY doc_id, position", (title_key,)
        )
        return [r[0] for r in rows]

    def titled_qualified(self, title_key: str) -> list[str]:
        """Passages of documents titled `title_key` plus a qualifier ("X 1945 film" for "X")."""
        pattern = title_key.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        rows = self._rows(
            "SELECT pid FROM passages WHERE title_key LIKE %s ESCAPE '\\' ORDER BY doc_id, position",
            (f"{pattern} %",),
        )
        return [r[0] for r in rows]

    # units ----------------------------------------------------------------------------------
    def put_units(self, doc_id: str, units: Iterable[tuple[str, str, str, str]]) -> None:
        """Record (unit id, passage id, kind, subject's entity key) for a document's units.

        A replaced unit takes a new sequence number, as SQLite's INSERT OR REPLACE a new rowid.
        """
        self._many(
            upsert("units", "uid, pid, doc_id, kind, subject", "seq=DEFAULT"),
            [(uid, pid, doc_id, kind, subject) for uid, pid, kind, subject in units],
        )

    def units_with_subject(
        self, subject_key: str, limit: int = -1, kinds: Sequence[str] = ()
    ) -> list[str]:
        """Ids of the units whose subject is this entity key (at most `limit`; -1: all)."""
        condition, values = kinds_condition(kinds)
        rows = self._rows(
            f"SELECT uid FROM units WHERE subject=%s{condition} ORDER BY seq LIMIT %s",
            (subject_key, *values, sql_limit(limit)),
        )
        return [r[0] for r in rows]

    def with_subject(
        self, subject_key: str, uids: Sequence[str], kinds: Sequence[str] = ()
    ) -> set[str]:
        """Those of `uids` whose subject is this entity key (and kind one of `kinds`, if given)."""
        condition, values = kinds_condition(kinds)
        rows = self._rows(
            f"SELECT uid FROM units WHERE subject=%s{condition} AND uid = ANY(%s)",
            (subject_key, *values, list(uids)),
        )
        return {r[0] for r in rows}

    def known_units(self, uids: Sequence[str]) -> set[str]:
        """Those of `uids` the catalog records (Chroma may hold units of a batch cut short)."""
        rows = self._rows("SELECT uid FROM units WHERE uid = ANY(%s)", (list(uids),))
        return {r[0] for r in rows}

    def units_without_subject(self) -> list[str]:
        """Ids of units recorded without a subject (none: this catalog always kept them)."""
        return [r[0] for r in self._rows("SELECT uid FROM units WHERE subject IS NULL")]

    def set_unit_subjects(self, pairs: Iterable[tuple[str, str]]) -> None:
        """Record (unit id, subject's entity key) pairs."""
        self._many("UPDATE units SET subject=%s WHERE uid=%s", [(s, u) for u, s in pairs])

    def unit_ids(self, doc_id: str) -> list[str]:
        """Ids of a document's units."""
        return [r[0] for r in self._rows("SELECT uid FROM units WHERE doc_id=%s", (doc_id,))]

    def unit_rows(self) -> list[tuple[str, str, str]]:
        """(unit id, passage id, document id) of every unit, in the order they were recorded."""
        return [
            (r[0], r[1], r[2])
            for r in self._rows("SELECT uid, pid, doc_id FROM units ORDER BY seq")
        ]

    def delete_unit_rows(self, uids: Sequence[str]) -> None:
        """Forget units by id."""
        with self.connection() as conn:
            conn.execute("DELETE FROM units WHERE uid = ANY(%s)", (list(uids),))

    def delete_units(self, doc_id: str) -> None:
        """Forget a document's units (before replacing them)."""
        with self.connection() as conn:
            conn.execute("DELETE FROM units WHERE doc_id=%s", (doc_id,))

    # extraction cache -----------------------------------------------------------------------
    def cached_extraction(self, key: str) -> tuple[str, int, int, int] | None:
        """(units json, proposed, ungrounded, invalid) for a cache key, or None."""
        row = self._one(
            "SELECT units, proposed, ungrounded, invalid FROM extractions WHERE key=%s", (key,)
        )
        return (row[0], row[1], row[2], row[3]) if row else None

    def cache_extraction(
        self,
        key: str,
        pid: str,
        units_json: str,
        counts: tuple[int, int, int],
        tokens: tuple[int, int],
    ) -> None:
        """Store one passage's extraction result under its cache key."""
        with self.connection() as conn:
            conn.execute(
                upsert("extractions", _EXTRACTION_COLUMNS),
                (key, pid, units_json, *counts, *tokens),
            )

    # figures --------------------------------------------------------------------------------
    def _extraction_sums(self, keys: Sequence[str], columns: str) -> list[int]:
        """The sums of `columns` over the cache rows of `keys`, a key counted as often as given."""
        times = Counter(keys)
        sums = [0] * len(columns.split(","))
        rows = self._rows(
            f"SELECT key, {columns} FROM extractions WHERE key = ANY(%s)", (list(times),)
        )
        for key, *values in rows:
            sums = [s + times[key] * int(v) for s, v in zip(sums, values, strict=True)]
        return sums

    def _indexed_rows(self) -> Iterable[Sequence[Any]]:
        return self._rows(INDEXED_ROWS)

    def is_empty(self) -> bool:
        """Whether no document was ever recorded (a new index, or one emptied by deletes)."""
        return self._one("SELECT 1 FROM documents LIMIT 1") is None

    def counts(self) -> dict[str, object]:
        """Figures for `resin stats`, the same as the SQLite catalog's."""
        kinds = {k: int(n) for k, n in self._rows("SELECT kind, COUNT(*) FROM units GROUP BY kind")}
        proposed, ungrounded, invalid = self._extraction_sums(
            self.current_cache_keys(), "proposed, ungrounded, invalid"
        )
        row = self._one(
            "SELECT (SELECT COUNT(*) FROM documents), "
            "(SELECT COUNT(*) FROM documents WHERE NOT complete), (SELECT COUNT(*) FROM passages), "
            "COALESCE(SUM(prompt_tokens),0), COALESCE(SUM(completion_tokens),0) FROM extractions"
        )
        assert row is not None
        documents, incomplete, passages, prompt, completion = (int(v) for v in row)
        return {
            "documents": documents,
            "incomplete_documents": incomplete,
            "passages": passages,
            "units": sum(kinds.values()),
            "units_by_kind": kinds,
            "proposed_units": proposed,
            "ungrounded_units": ungrounded,
            "invalid_units": invalid,
            "prompt_tokens": prompt,
            "completion_tokens": completion,
        }
