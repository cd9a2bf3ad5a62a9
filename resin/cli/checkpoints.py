"""Where `resin chat` keeps its threads: `chat.sqlite` beside the index, or PostgreSQL.

With `--database postgresql://…` (or `RESIN_DATABASE_URL`) the checkpoints go to PostgreSQL
through `langgraph-checkpoint-postgres`, so a thread started on one machine continues on another.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from resin.agent.threads import CONNECT_SECONDS, SAVER_CONNECTION, SETUP_LOCK
from resin.indexes.database import check_url, database_failure, require_driver

DATABASE_ENV = "RESIN_DATABASE_URL"


@contextmanager
def chat_checkpointer(index: Path, database: str | None) -> Iterator[Any]:
    """The checkpointer of `resin chat`, open for the block; raises DatabaseError for PostgreSQL."""
    if not database:
        import sqlite3

        from langgraph.checkpoint.sqlite import SqliteSaver

        from resin.agent.state import checkpoint_serializer

        conn = sqlite3.connect(index / "chat.sqlite", check_same_thread=False)
        try:
            yield SqliteSaver(conn, serde=checkpoint_serializer())
        finally:
            conn.close()
    else:
        with postgres_saver(database) as saver:
            yield saver


@contextmanager
def postgres_saver(database: str) -> Iterator[Any]:
    """A PostgresSaver on a one-connection pool, its tables set up (once, under a lock)."""
    require_driver()
    import psycopg
    from langgraph.checkpoint.postgres import PostgresSaver
    from psycopg.rows import DictRow, dict_row
    from psycopg_pool import ConnectionPool

    from resin.agent.state import checkpoint_serializer

    check_url(database)
    options: dict[str, Any] = {**SAVER_CONNECTION, "row_factory": dict_row}
    try:
        with psycopg.Connection[DictRow].connect(database, **options) as conn:
            conn.execute(SETUP_LOCK)
            PostgresSaver(conn).setup()
    except psycopg.Error as exc:
        raise database_failure(database, exc) from None
    # the pool checks its connection before each use: a chat goes on after the server drops it
    with ConnectionPool(
        database,
        connection_class=psycopg.Connection[DictRow],
        kwargs=options,
        min_size=1,
        max_size=1,
        num_workers=1,
        check=ConnectionPool.check_connection,
        timeout=CONNECT_SECONDS,
        open=False,
    ) as pool:
        try:
            yield PostgresSaver(pool, serde=checkpoint_serializer())
        except psycopg.OperationalError as exc:
            raise database_failure(database, exc) from None
