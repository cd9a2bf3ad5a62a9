"""The PostgreSQL side of an index: its tables, its connection pool, its manifest, its build lock.

Every table lives in the `resin` schema of the database the URL names (one index per database),
so LangGraph's checkpoint tables can share the database. The schema is versioned in
`resin.schema_version`; it is created on first open, under a transaction-scoped advisory lock so
that two processes opening a new database at once do not race.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg import Connection
from psycopg_pool import ConnectionPool

from resin.indexes.database import DatabaseError, database_failure, shown_url
from resin.indexes.locks import IndexBusyError

PG_SCHEMA = "resin"
PG_SCHEMA_VERSION = 2
POOL_SIZE = 4
# The advisory lock keys: one for the builder, one for creating the tables.
_BUILD_LOCK = 0x7265_7369_6E01
_DDL_LOCK = 0x7265_7369_6E02
# Nodes and edges are rows; their lists (names, unit ids, relations) are JSON arrays.
_TABLES = """
CREATE TABLE IF NOT EXISTS documents (
    doc_id TEXT COLLATE "C" PRIMARY KEY, hash TEXT NOT NULL, title TEXT NOT NULL,
    source TEXT NOT NULL, extract_key TEXT NOT NULL, complete BOOLEAN NOT NULL, content TEXT);
CREATE INDEX IF NOT EXISTS documents_content ON documents(content);
CREATE TABLE IF NOT EXISTS passages (
    pid TEXT COLLATE "C" PRIMARY KEY, doc_id TEXT COLLATE "C" NOT NULL, position INTEGER NOT NULL,
    title TEXT NOT NULL, text TEXT NOT NULL, sentences TEXT NOT NULL,
    title_key TEXT COLLATE "C" NOT NULL);
CREATE INDEX IF NOT EXISTS passages_doc ON passages(doc_id);
CREATE INDEX IF NOT EXISTS passages_title ON passages(title_key text_pattern_ops);
CREATE TABLE IF NOT EXISTS units (
    uid TEXT COLLATE "C" PRIMARY KEY, pid TEXT NOT NULL, doc_id TEXT COLLATE "C" NOT NULL,
    kind TEXT NOT NULL, subject TEXT COLLATE "C", seq BIGSERIAL NOT NULL);
CREATE INDEX IF NOT EXISTS units_doc ON units(doc_id);
CREATE INDEX IF NOT EXISTS units_subject ON units(subject, seq);
CREATE TABLE IF NOT EXISTS mentions (
    name TEXT COLLATE "C" NOT NULL, pid TEXT COLLATE "C" NOT NULL, PRIMARY KEY (name, pid));
CREATE INDEX IF NOT EXISTS mentions_pid ON mentions(pid);
CREATE TABLE IF NOT EXISTS scanned (name TEXT COLLATE "C" PRIMARY KEY);
CREATE TABLE IF NOT EXISTS unscanned (name TEXT COLLATE "C" PRIMARY KEY);
CREATE TABLE IF NOT EXISTS extractions (
    key TEXT PRIMARY KEY, pid TEXT NOT NULL, units TEXT NOT NULL, proposed INTEGER NOT NULL,
    ungrounded INTEGER NOT NULL, invalid INTEGER NOT NULL,
    prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS graph_nodes (
    node TEXT COLLATE "C" PRIMARY KEY, names JSONB NOT NULL, units JSONB NOT NULL,
    seq BIGINT NOT NULL);
CREATE TABLE IF NOT EXISTS graph_edges (
    head TEXT COLLATE "C" NOT NULL, tail TEXT COLLATE "C" NOT NULL, relations JSONB NOT NULL,
    provenance JSONB NOT NULL, weight INTEGER NOT NULL, causal BOOLEAN NOT NULL,
    seq BIGINT NOT NULL, PRIMARY KEY (head, tail));
CREATE TABLE IF NOT EXISTS generation (
    one BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (one), value BIGINT NOT NULL);
INSERT INTO generation VALUES (TRUE, 0) ON CONFLICT DO NOTHING;
CREATE TABLE IF NOT EXISTS manifest (
    one BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (one), body JSONB NOT NULL);
"""
# Version 2: what replicas read by SQL instead of loading (`pg_reads`, `pg_lexical`).
_READ_TABLES = """
CREATE TABLE IF NOT EXISTS graph_names (
    key TEXT COLLATE "C" PRIMARY KEY, node TEXT COLLATE "C" NOT NULL);
CREATE INDEX IF NOT EXISTS graph_names_node ON graph_names(node);
CREATE INDEX IF NOT EXISTS graph_edges_tail ON graph_edges(tail);
CREATE INDEX IF NOT EXISTS graph_edges_heavy ON graph_edges(head, weight DESC, seq);
CREATE INDEX IF NOT EXISTS graph_edges_causal ON graph_edges(head) WHERE causal;
CREATE TABLE IF NOT EXISTS passage_terms (
    term TEXT COLLATE "C" NOT NULL, pid TEXT COLLATE "C" NOT NULL, tf INTEGER NOT NULL,
    length INTEGER NOT NULL, PRIMARY KEY (term, pid));
CREATE INDEX IF NOT EXISTS passage_terms_pid ON passage_terms(pid);
CREATE TABLE IF NOT EXISTS passage_lengths (
    pid TEXT COLLATE "C" PRIMARY KEY, length INTEGER NOT NULL);
"""


def upsert(table: str, columns: str, extra: str = "") -> str:
    """INSERT of `columns` that replaces the row of the same first column (its primary key)."""
    names = [c.strip() for c in columns.split(",")]
    sets = ", ".join([*(f"{c}=EXCLUDED.{c}" for c in names[1:]), *([extra] if extra else [])])
    marks = ",".join(["%s"] * len(names))
    return f"INSERT INTO {table} ({columns}) VALUES ({marks}) ON CONFLICT ({names[0]}) DO UPDATE SET {sets}"


def sql_limit(limit: int) -> int | None:
    """SQLite's "LIMIT -1" (no limit) as PostgreSQL's "LIMIT NULL"."""
    return None if limit < 0 else limit


def kinds_condition(kinds: Sequence[str]) -> tuple[str, list[Any]]:
    """The condition on a unit's kind for `kinds` (none: any kind) and its parameter."""
    return (" AND kind = ANY(%s)", [list(kinds)]) if kinds else ("", [])


def _connect(url: str, timeout: float = 10, **kwargs: Any) -> Connection[Any]:
    """A connection to `url`; one that fails says where in one line, with no traceback."""
    try:
        return psycopg.connect(url, connect_timeout=max(1, round(timeout)), **kwargs)
    except psycopg.Error as exc:
        raise database_failure(url, exc) from None


def _create_tables(url: str) -> None:
    """Create the schema and its tables if missing, upgrade an older version's, refuse a newer's.

    An upgrade from version 1 writes the read tables from the rows it has, in the transaction
    that creates them: a replica of either version never sees them half filled.
    """
    with _connect(url) as conn:
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_DDL_LOCK,))
        conn.execute(f"CREATE SCHEMA IF NOT EXISTS {PG_SCHEMA}")
        conn.execute(f"SET LOCAL search_path = {PG_SCHEMA}")
        conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        row = conn.execute("SELECT version FROM schema_version").fetchone()
        if row is None:
            conn.execute("INSERT INTO schema_version VALUES (%s)", (PG_SCHEMA_VERSION,))
        elif row[0] == 1:
            _upgrade_from_1(conn)
        elif row[0] != PG_SCHEMA_VERSION:
            raise DatabaseError(
                f"database {shown_url(url)} holds a resin index of schema version {row[0]}; "
                f"this resin reads {PG_SCHEMA_VERSION}. Use another database."
            )
        conn.execute(_TABLES)
        conn.execute(_READ_TABLES)


def _upgrade_from_1(conn: Connection[Any]) -> None:
    """Add version 2's read tables to a version 1 index and fill them from its rows."""
    from resin.indexes.pg_lexical import fill_terms
    from resin.indexes.pg_reads import fill_names

    conn.execute(_READ_TABLES)
    fill_terms(conn)
    fill_names(conn)
    conn.execute("UPDATE schema_version SET version = %s", (PG_SCHEMA_VERSION,))


def connect_pool(url: str) -> ConnectionPool[Connection[Any]]:
    """A pool on `url` whose connections see the `resin` schema, its tables made if missing.

    Each connection is checked as it is handed out, so connections the server dropped (a
    restart) are replaced rather than failing the next requests.
    """
    _create_tables(url)
    return ConnectionPool(
        url,
        min_size=1,
        max_size=POOL_SIZE,
        kwargs={"options": f"-c search_path={PG_SCHEMA}", "connect_timeout": 10},
        check=ConnectionPool.check_connection,
        open=True,
    )


class PgRows:
    """A catalog's connections: a pool, and per thread the open build batch's connection."""

    def __init__(self, url: str) -> None:
        """Open the catalog at `url`, its tables made on first open; the graph shares its pool."""
        self.url = url
        self.pool: ConnectionPool[Connection[Any]] = connect_pool(url)
        self._local = threading.local()

    def close(self) -> None:
        """Close the pool."""
        self.pool.close()

    @contextmanager
    def connection(self) -> Iterator[Connection[Any]]:
        """This thread's open batch's connection, else one from the pool, committed at the end."""
        held: Connection[Any] | None = getattr(self._local, "conn", None)
        if held is not None:
            yield held
            return
        with self.pool.connection() as conn:
            yield conn

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Every write this thread makes in the block, the graph's saves too, in one transaction.

        It commits when the block ends and rolls back if it raises, so a builder killed
        mid-batch leaves the last committed batch: Chroma, written first, may hold records no
        row names yet, which readers skip (`known_units`). Other threads (the extraction
        cache's writers) keep their own connections.
        """
        if getattr(self._local, "conn", None) is not None:
            yield
            return
        with self.pool.connection() as conn:
            self._local.conn = conn
            try:
                yield
            finally:
                self._local.conn = None

    def _rows(self, query: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self.connection() as conn:
            return conn.execute(query, params).fetchall()

    def _one(self, query: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        with self.connection() as conn:
            return conn.execute(query, params).fetchone()

    def _many(self, query: str, rows: Sequence[Sequence[Any]]) -> None:
        """One statement over many rows, in one transaction."""
        if rows:
            with self.connection() as conn, conn.cursor() as cur:
                cur.executemany(query, rows)


def has_index(url: str, timeout: float = 10) -> bool:
    """Whether the database at `url` holds a manifest (an index was built there).

    A server that does not answer within `timeout` seconds raises DatabaseError.
    """
    with _connect(url, timeout) as conn:
        table = conn.execute("SELECT to_regclass(%s)", (f"{PG_SCHEMA}.manifest",)).fetchone()
        if table is None or table[0] is None:
            return False
        return conn.execute(f"SELECT 1 FROM {PG_SCHEMA}.manifest").fetchone() is not None


def read_manifest(pool: ConnectionPool[Connection[Any]]) -> dict[str, Any] | None:
    """The index's manifest, or None in a new database."""
    with pool.connection() as conn:
        row = conn.execute("SELECT body FROM manifest").fetchone()
    return dict(row[0]) if row else None


def write_manifest(pool: ConnectionPool[Connection[Any]], manifest: dict[str, Any]) -> None:
    """Replace the manifest (one row, in one statement)."""
    with pool.connection() as conn:
        conn.execute(
            "INSERT INTO manifest VALUES (TRUE, %s) ON CONFLICT (one) DO UPDATE SET body=EXCLUDED.body",
            (json.dumps(manifest),),
        )


def _holder(conn: Connection[Any]) -> str:
    """Who holds the build lock, from the application name its session set."""
    row = conn.execute(
        "SELECT a.application_name, a.client_addr FROM pg_locks l JOIN pg_stat_activity a "
        "ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted "
        "AND ((l.classid::bigint << 32) | l.objid::bigint) = %s",
        (_BUILD_LOCK,),
    ).fetchone()
    return str(row[0]) if row and row[0] else "an unknown session"


@contextmanager
def pg_builder_lock(
    url: str, wait: bool = True, on_wait: Callable[[str], None] | None = None
) -> Iterator[None]:
    """Hold the index's advisory build lock for the block; wait for it, or raise IndexBusyError.

    A session-level lock on its own connection: PostgreSQL drops it when that session ends, so a
    builder killed in any way releases it.
    """
    me = f"resin builder pid {os.getpid()} on {socket.gethostname()}, started " + time.strftime(
        "%Y-%m-%d %H:%M:%S"
    )
    with _connect(url, autocommit=True, application_name=me[:63]) as conn:
        row = conn.execute("SELECT pg_try_advisory_lock(%s)", (_BUILD_LOCK,)).fetchone()
        if not (row and row[0]):
            holder = _holder(conn)
            if not wait:
                raise IndexBusyError(
                    f"index {shown_url(url)} is being built by another builder ({holder}); "
                    "wait for it, or run again without --no-wait (RESIN_NO_WAIT)"
                )
            if on_wait is not None:
                on_wait(f"waiting for the builder of index {shown_url(url)} ({holder})")
            conn.execute("SELECT pg_advisory_lock(%s)", (_BUILD_LOCK,))
        try:
            yield
        finally:
            # a session the server dropped holds no lock: unlocking it would only raise again
            if not conn.broken:
                conn.execute("SELECT pg_advisory_unlock(%s)", (_BUILD_LOCK,))
