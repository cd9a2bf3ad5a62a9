"""A SQLite database's connections for a catalog: one per thread, atomic writes, build batches."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class SqliteDb:
    """The connections of a SQLite file: one per thread, so parallel hops read concurrently."""

    def __init__(self, path: Path) -> None:
        """Connections to `path`, opened as threads first read."""
        self.path = path
        self._local = threading.local()
        self._all: list[tuple[threading.Thread, sqlite3.Connection]] = []
        self._lock = threading.Lock()

    @property
    def db(self) -> sqlite3.Connection:
        """This thread's connection: parallel hops read concurrently under WAL."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(
                self.path, isolation_level=None, timeout=30, check_same_thread=False
            )
            conn.execute("PRAGMA synchronous=NORMAL")
            self._local.conn = conn
            with self._lock:
                # Parallel hops run on short-lived threads: close what finished threads left.
                for _, old in [e for e in self._all if not e[0].is_alive()]:
                    old.close()
                self._all = [e for e in self._all if e[0].is_alive()]
                self._all.append((threading.current_thread(), conn))
        return conn

    def close(self) -> None:
        """Close every connection this catalog opened."""
        with self._lock:
            for _, conn in self._all:
                conn.close()
            self._all.clear()
        self._local = threading.local()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One atomic write: all of it lands or none of it does."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    @contextmanager
    def batch(self) -> Iterator[None]:
        """A build batch: here each write commits on its own.

        The graph is a file that cannot join a SQLite transaction, so the build's order of
        writes (vectors, graph, then these rows) is the record of what a rerun redoes.
        """
        yield
