"""The build's bookkeeping in SQLite: documents, passages, units, mentions and the extraction cache.

SQLite commits are atomic, so after a kill -9 the catalog says exactly which documents finished;
everything it has not marked done is redone on the next run, and every store upserts by
content-derived ids, so redoing is idempotent.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from resin.indexes.base import DocumentRecord
from resin.indexes.catalog_mentions import Mentions
from resin.indexes.catalog_rows import (
    INDEXED_ROWS,
    CatalogFigures,
    passage_of_row,
    record_of_row,
    row_of_passage,
)
from resin.indexes.documents import Passage


def _kind_filter(kinds: Sequence[str]) -> str:
    """The SQL condition on a unit's kind for `kinds` (none: any kind), its values bound after."""
    return f" AND kind IN ({','.join('?' * len(kinds))})" if kinds else ""


_SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    doc_id TEXT PRIMARY KEY, hash TEXT NOT NULL, title TEXT NOT NULL, source TEXT NOT NULL,
    extract_key TEXT NOT NULL, complete INTEGER NOT NULL, content TEXT);
CREATE TABLE IF NOT EXISTS passages (
    pid TEXT PRIMARY KEY, doc_id TEXT NOT NULL, position INTEGER NOT NULL, title TEXT NOT NULL,
    text TEXT NOT NULL, sentences TEXT NOT NULL, title_key TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS passages_doc ON passages(doc_id);
CREATE INDEX IF NOT EXISTS passages_title ON passages(title_key);
CREATE TABLE IF NOT EXISTS units (
    uid TEXT PRIMARY KEY, pid TEXT NOT NULL, doc_id TEXT NOT NULL, kind TEXT NOT NULL,
    subject TEXT);
CREATE INDEX IF NOT EXISTS units_doc ON units(doc_id);
CREATE TABLE IF NOT EXISTS mentions (name TEXT NOT NULL, pid TEXT NOT NULL, PRIMARY KEY (name, pid));
CREATE INDEX IF NOT EXISTS mentions_pid ON mentions(pid);
CREATE TABLE IF NOT EXISTS scanned (name TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS unscanned (name TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS extractions (
    key TEXT PRIMARY KEY, pid TEXT NOT NULL, units TEXT NOT NULL, proposed INTEGER NOT NULL,
    ungrounded INTEGER NOT NULL, invalid INTEGER NOT NULL,
    prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL);
"""


class Catalog(Mentions, CatalogFigures):
    """SQLite catalog beside the Chroma folder: the `CatalogStore` of one machine."""

    def __init__(self, path: Path) -> None:
        """Open (creating if needed) the catalog database."""
        super().__init__(path)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.executescript(_SCHEMA)
        # Catalogs from before units had a subject: the column is added empty and `Index` fills it.
        if "subject" not in {r[1] for r in self.db.execute("PRAGMA table_info(units)")}:
            self.db.execute("ALTER TABLE units ADD COLUMN subject TEXT")
        self.db.execute("CREATE INDEX IF NOT EXISTS units_subject ON units(subject)")
        # Catalogs from before documents kept their content hash: added empty, filled as rebuilt.
        if "content" not in {r[1] for r in self.db.execute("PRAGMA table_info(documents)")}:
            self.db.execute("ALTER TABLE documents ADD COLUMN content TEXT")
        self.db.execute("CREATE INDEX IF NOT EXISTS documents_content ON documents(content)")

    # documents ------------------------------------------------------------------------------
    def document(self, doc_id: str) -> DocumentRecord | None:
        """The record of one document, or None."""
        row = self.db.execute(
            "SELECT doc_id, hash, title, source, extract_key, complete, content FROM documents "
            "WHERE doc_id=?",
            (doc_id,),
        ).fetchone()
        return record_of_row(row) if row else None

    def documents(self) -> list[DocumentRecord]:
        """Every document record."""
        rows = self.db.execute(
            "SELECT doc_id, hash, title, source, extract_key, complete, content FROM documents "
            "ORDER BY doc_id"
        )
        return [record_of_row(r) for r in rows]

    def records(self, doc_ids: Sequence[str]) -> dict[str, DocumentRecord]:
        """The records of those of `doc_ids` that are indexed, by id."""
        rows = self.db.execute(
            "SELECT doc_id, hash, title, source, extract_key, complete, content FROM documents "
            "WHERE doc_id IN (SELECT value FROM json_each(?))",
            (json.dumps(list(doc_ids)),),
        )
        return {r[0]: record_of_row(r) for r in rows}

    def owners(self, contents: Sequence[str]) -> dict[str, str]:
        """Content hash → the first id (by id) indexed with it, for those of `contents` indexed."""
        rows = self.db.execute(
            "SELECT content, min(doc_id) FROM documents "
            "WHERE content IN (SELECT value FROM json_each(?)) GROUP BY content",
            (json.dumps(list(contents)),),
        )
        return dict(rows.fetchall())

    def put_documents(self, documents: Sequence[tuple[DocumentRecord, list[Passage]]]) -> None:
        """Record documents and their passages as indexed (replacing earlier versions)."""
        with self.transaction() as db:
            for record, passages in documents:
                db.execute("DELETE FROM passages WHERE doc_id=?", (record.doc_id,))
                db.execute(
                    "INSERT OR REPLACE INTO documents "
                    "(doc_id, hash, title, source, extract_key, complete, content) "
                    "VALUES (?,?,?,?,?,?,?)",
                    (
                        record.doc_id,
                        record.hash,
                        record.title,
                        record.source,
                        record.extract_key,
                        int(record.complete),
                        record.content or None,
                    ),
                )
                db.executemany(
                    "INSERT OR REPLACE INTO passages VALUES (?,?,?,?,?,?,?)",
                    [row_of_passage(p) for p in passages],
                )

    def mark_complete(self, flags: Iterable[tuple[str, bool]]) -> None:
        """Record, per (document id, flag), whether every passage of the document was extracted."""
        with self.transaction() as db:
            db.executemany(
                "UPDATE documents SET complete=? WHERE doc_id=?", [(int(c), d) for d, c in flags]
            )

    def delete_document(self, doc_id: str) -> None:
        """Forget a document, its passages, units and mentions."""
        with self.transaction() as db:
            pids = [r[0] for r in db.execute("SELECT pid FROM passages WHERE doc_id=?", (doc_id,))]
            db.executemany("DELETE FROM mentions WHERE pid=?", [(p,) for p in pids])
            db.execute("DELETE FROM units WHERE doc_id=?", (doc_id,))
            db.execute("DELETE FROM passages WHERE doc_id=?", (doc_id,))
            db.execute("DELETE FROM documents WHERE doc_id=?", (doc_id,))

    # passages -------------------------------------------------------------------------------
    def passages(self, pids: Iterable[str]) -> list[Passage]:
        """Passages by id, in the order asked (unknown ids are skipped)."""
        wanted = list(dict.fromkeys(pids))
        found: dict[str, Passage] = {}
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            rows = self.db.execute(
                f"SELECT * FROM passages WHERE pid IN ({','.join('?' * len(chunk))})", chunk
            )
            found.update((r[0], passage_of_row(r)) for r in rows)
        return [found[p] for p in wanted if p in found]

    def doc_passage_ids(self, doc_id: str) -> list[str]:
        """Ids of a document's passages in reading order."""
        rows = self.db.execute(
            "SELECT pid FROM passages WHERE doc_id=? ORDER BY position", (doc_id,)
        )
        return [r[0] for r in rows]

    def passage_rows(self) -> list[tuple[str, str, int]]:
        """(passage id, document id, position) of every passage, in no set order."""
        return [tuple(r) for r in self.db.execute("SELECT pid, doc_id, position FROM passages")]

    def delete_passages(self, pids: Sequence[str]) -> None:
        """Forget passages and their mentions (their documents' records stay)."""
        with self.transaction() as db:
            db.executemany("DELETE FROM mentions WHERE pid=?", [(p,) for p in pids])
            db.executemany("DELETE FROM passages WHERE pid=?", [(p,) for p in pids])

    def iter_passages(self, batch: int = 2000) -> Iterator[Passage]:
        """Every stored passage."""
        cursor = self.db.execute("SELECT * FROM passages ORDER BY doc_id, position")
        while rows := cursor.fetchmany(batch):
            yield from (passage_of_row(r) for r in rows)

    def titled(self, title_key: str) -> list[str]:
        """Passages of the documents whose title, as an entity key, is `title_key`."""
        rows = self.db.execute(
            "SELECT pid FROM passages WHERE title_key=? ORDER BY doc_id, position", (title_key,)
        )
        return [r[0] for r in rows]

    def titled_qualified(self, title_key: str) -> list[str]:
        """Passages of documents titled `title_key` plus a qualifier ("X 1945 film" for "X").

        A name in a question rarely carries the disambiguating words of its page's title.
        """
        pattern = title_key.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        rows = self.db.execute(
            "SELECT pid FROM passages WHERE title_key LIKE ? ESCAPE '\\' ORDER BY doc_id, position",
            (f"{pattern} %",),
        )
        return [r[0] for r in rows]

    # units ----------------------------------------------------------------------------------
    def put_units(self, doc_id: str, units: Iterable[tuple[str, str, str, str]]) -> None:
        """Record (unit id, passage id, kind, subject's entity key) for a document's units."""
        with self.transaction() as db:
            db.executemany(
                "INSERT OR REPLACE INTO units VALUES (?,?,?,?,?)",
                [(uid, pid, doc_id, kind, subject) for uid, pid, kind, subject in units],
            )

    def units_with_subject(
        self, subject_key: str, limit: int = -1, kinds: Sequence[str] = ()
    ) -> list[str]:
        """Ids of the units whose subject is this entity key (at most `limit`; -1: all).

        An indexed lookup: Chroma's metadata filter scans, at tens of milliseconds per call.
        """
        rows = self.db.execute(
            f"SELECT uid FROM units WHERE subject=?{_kind_filter(kinds)} LIMIT ?",
            (subject_key, *kinds, limit),
        )
        return [r[0] for r in rows]

    def with_subject(
        self, subject_key: str, uids: Sequence[str], kinds: Sequence[str] = ()
    ) -> set[str]:
        """Those of `uids` whose subject is this entity key (and kind one of `kinds`, if given)."""
        found: set[str] = set()
        for start in range(0, len(uids), 500):
            chunk = list(uids[start : start + 500])
            rows = self.db.execute(
                f"SELECT uid FROM units WHERE subject=?{_kind_filter(kinds)} "
                f"AND uid IN ({','.join('?' * len(chunk))})",
                [subject_key, *kinds, *chunk],
            )
            found.update(r[0] for r in rows)
        return found

    def known_units(self, uids: Sequence[str]) -> set[str]:
        """Those of `uids` the catalog records (Chroma may hold units of a batch cut short)."""
        found: set[str] = set()
        for start in range(0, len(uids), 500):
            chunk = list(uids[start : start + 500])
            rows = self.db.execute(
                f"SELECT uid FROM units WHERE uid IN ({','.join('?' * len(chunk))})", chunk
            )
            found.update(r[0] for r in rows)
        return found

    def units_without_subject(self) -> list[str]:
        """Ids of units recorded before the catalog kept subjects."""
        return [r[0] for r in self.db.execute("SELECT uid FROM units WHERE subject IS NULL")]

    def set_unit_subjects(self, pairs: Iterable[tuple[str, str]]) -> None:
        """Record (unit id, subject's entity key) pairs."""
        with self.transaction() as db:
            db.executemany("UPDATE units SET subject=? WHERE uid=?", [(s, u) for u, s in pairs])

    def unit_ids(self, doc_id: str) -> list[str]:
        """Ids of a document's units."""
        return [r[0] for r in self.db.execute("SELECT uid FROM units WHERE doc_id=?", (doc_id,))]

    def unit_rows(self) -> list[tuple[str, str, str]]:
        """(unit id, passage id, document id) of every unit, in the order they were recorded."""
        return [
            tuple(r) for r in self.db.execute("SELECT uid, pid, doc_id FROM units ORDER BY rowid")
        ]

    def delete_unit_rows(self, uids: Sequence[str]) -> None:
        """Forget units by id."""
        with self.transaction() as db:
            db.executemany("DELETE FROM units WHERE uid=?", [(u,) for u in uids])

    def delete_units(self, doc_id: str) -> None:
        """Forget a document's units (before replacing them)."""
        with self.transaction() as db:
            db.execute("DELETE FROM units WHERE doc_id=?", (doc_id,))

    # extraction cache -----------------------------------------------------------------------
    def cached_extraction(self, key: str) -> tuple[str, int, int, int] | None:
        """(units json, proposed, ungrounded, invalid) for a cache key, or None."""
        row = self.db.execute(
            "SELECT units, proposed, ungrounded, invalid FROM extractions WHERE key=?", (key,)
        ).fetchone()
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
        with self.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO extractions VALUES (?,?,?,?,?,?,?,?)",
                (key, pid, units_json, *counts, *tokens),
            )

    # figures --------------------------------------------------------------------------------
    def _extraction_sums(self, keys: Sequence[str], columns: str) -> list[int]:
        """The sums of `columns` over the cache rows of `keys`, a key counted as often as given."""
        times = Counter(keys)
        wanted = list(times)
        sums = [0] * len(columns.split(","))
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            rows = self.db.execute(
                f"SELECT key, {columns} FROM extractions "
                f"WHERE key IN ({','.join('?' * len(chunk))})",
                chunk,
            )
            for key, *values in rows:
                sums = [s + times[key] * int(v) for s, v in zip(sums, values, strict=True)]
        return sums

    def _indexed_rows(self) -> Iterable[Sequence[Any]]:
        return self.db.execute(INDEXED_ROWS)

    def is_empty(self) -> bool:
        """Whether no document was ever recorded (a new index, or one emptied by deletes)."""
        return self.db.execute("SELECT 1 FROM documents LIMIT 1").fetchone() is None

    def counts(self) -> dict[str, object]:
        """Figures for `resin stats`."""
        one = self.db.execute
        kinds = dict(one("SELECT kind, COUNT(*) FROM units GROUP BY kind").fetchall())
        # the proposals of the passages indexed now, so that the share kept is of those
        proposed, ungrounded, invalid = self._extraction_sums(
            self.current_cache_keys(), "proposed, ungrounded, invalid"
        )
        prompt, completion = one(
            "SELECT COALESCE(SUM(prompt_tokens),0), COALESCE(SUM(completion_tokens),0) "
            "FROM extractions"
        ).fetchone()
        return {
            "documents": one("SELECT COUNT(*) FROM documents").fetchone()[0],
            "incomplete_documents": one(
                "SELECT COUNT(*) FROM documents WHERE complete=0"
            ).fetchone()[0],
            "passages": one("SELECT COUNT(*) FROM passages").fetchone()[0],
            "units": sum(kinds.values()),
            "units_by_kind": kinds,
            "proposed_units": proposed,
            "ungrounded_units": ungrounded,
            "invalid_units": invalid,
            "prompt_tokens": prompt,
            "completion_tokens": completion,
        }
