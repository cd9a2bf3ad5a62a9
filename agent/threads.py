"""Threads shared by `langgraph dev` replicas: their checkpoints in PostgreSQL, their records adopted.

langgraph.json names `checkpointer` as the server's checkpointer. With `RESIN_THREADS_DATABASE_URL`
(else `RESIN_DATABASE_URL`) set, every replica writes its threads' checkpoints to that database
through `langgraph-checkpoint-postgres`, in the same tables `resin chat --database` uses; without
either, the server keeps its own default (in memory, saved under `.langgraph_api/`).

The open-source server keeps thread *records* (metadata, status) and runs in its own process, so
a replica answers 404 for a thread another replica created even when its checkpoints are shared.
`SharedThreads`, mounted on resin's HTTP app, closes that gap: a request naming a thread this
process has not served yet is checked against the shared checkpoints first, and a thread found
there is registered here, so any replica reads and continues any thread.
"""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from resin.indexes.database import DatabaseError, database_failure, require_driver, shown_url

if TYPE_CHECKING:  # the server's own packages: `resin chat` imports this module without them
    from langchain_core.runnables import RunnableConfig
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

THREADS_ENV = ("RESIN_THREADS_DATABASE_URL", "RESIN_DATABASE_URL")
CONNECT_SECONDS = 10
# what the PostgreSQL savers need of a connection (and dict rows, set where psycopg is imported)
SAVER_CONNECTION: dict[str, Any] = {
    "autocommit": True,
    "prepare_threshold": 0,
    "connect_timeout": CONNECT_SECONDS,
}
# one setup at a time: two machines starting at once would both create the tables
SETUP_LOCK = "SELECT pg_advisory_lock(hashtext('resin chat checkpoint setup'))"
GRAPH = "resin"  # the graph langgraph.json serves
_THREAD_PATH = re.compile(r"^/threads/([0-9a-fA-F-]{36})(?:/|$)")


def threads_database() -> str:
    """The database that holds the threads' checkpoints, or "" to keep the server's own."""
    return next((os.environ[n] for n in THREADS_ENV if os.environ.get(n)), "")


def check_url(url: str) -> None:
    """Refuse a URL that is no PostgreSQL URL, or a missing driver, in one line."""
    require_driver()
    if not url.startswith(("postgresql://", "postgres://")):
        raise DatabaseError(
            f"database {shown_url(url)!r} is no PostgreSQL URL "
            "(postgresql://USER@HOST:PORT/DATABASE)"
        )


@asynccontextmanager
async def checkpointer() -> AsyncIterator[Any]:
    """The server's checkpointer: PostgreSQL when a threads database is named, else its default.

    langgraph-api enters this once per event loop and closes it when the server stops.
    """
    url = threads_database()
    if not url:
        from langgraph_runtime.checkpoint import Checkpointer

        yield Checkpointer()
        return
    async with postgres_checkpointer(url) as saver:
        await settle_finished_runs(saver)
        yield saver


@asynccontextmanager
async def postgres_checkpointer(url: str) -> AsyncIterator[Any]:
    """An AsyncPostgresSaver on a pool that checks each connection before lending it.

    The check replaces a connection the database dropped (a restart, an idle timeout), so the
    first runs after a PostgreSQL restart do not fail on stale connections.
    """
    check_url(url)
    import psycopg
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    from psycopg.rows import DictRow, dict_row
    from psycopg_pool import AsyncConnectionPool

    from resin.agent.state import checkpoint_serializer

    options = {**SAVER_CONNECTION, "row_factory": dict_row}
    try:
        async with await psycopg.AsyncConnection[DictRow].connect(url, **options) as conn:
            await conn.execute(SETUP_LOCK)
            await AsyncPostgresSaver(conn).setup()
    except psycopg.Error as exc:
        raise database_failure(url, exc) from None
    async with AsyncConnectionPool(
        url,
        connection_class=psycopg.AsyncConnection[DictRow],
        kwargs=options,
        min_size=1,
        max_size=4,
        check=AsyncConnectionPool.check_connection,
        timeout=CONNECT_SECONDS,
        open=False,
    ) as pool:
        yield AsyncPostgresSaver(pool, serde=checkpoint_serializer())


async def settle_finished_runs(saver: Any) -> None:
    """Keep a restarted `langgraph dev` from answering again a run that had finished.

    The in-memory server saves its run list every 10 s and, on restart, queues again, with its
    input, every run that list has running. LangGraph resumes such a run when the thread's last
    checkpoint is the run's own; when the thread has gone on since (the next turn, on this
    replica or another), the input would be read as a new turn and answered a second time. A
    run whose own checkpoints end finished is given no input instead, so it ends at once. Other
    runtimes keep their runs elsewhere and are left alone.
    """
    try:
        from langgraph_runtime_inmem.database import GLOBAL_STORE
    except ImportError:
        return
    from resin.agent.graph import builder

    graph = builder.compile(checkpointer=saver)
    for run in GLOBAL_STORE.get("runs", []):
        kwargs = run["kwargs"]
        if run["status"] != "pending" or kwargs.get("input") is None or kwargs.get("command"):
            continue
        config: RunnableConfig = {"configurable": {"thread_id": str(run["thread_id"])}}
        own = [t async for t in saver.alist(config, filter={"run_id": str(run["run_id"])}, limit=1)]
        if own and not (await graph.aget_state(own[0].config)).next:
            kwargs["input"] = None


async def has_checkpoints(url: str, thread_id: str) -> bool:
    """Whether the shared checkpoints hold `thread_id`'s state.

    An unreachable database answers no: the request goes on to the server, whose own
    checkpointer then reports the failure.
    """
    import psycopg
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    from psycopg.rows import DictRow, dict_row

    from resin.agent.state import checkpoint_serializer

    options = {**SAVER_CONNECTION, "row_factory": dict_row}
    config: RunnableConfig = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}
    try:
        async with await psycopg.AsyncConnection[DictRow].connect(url, **options) as conn:
            saver = AsyncPostgresSaver(conn, serde=checkpoint_serializer())
            return await saver.aget_tuple(config) is not None
    except psycopg.Error:
        return False


class SharedThreads:
    """ASGI middleware: register a thread held by the shared checkpoints before it is served.

    A thread id this process has served (any 2xx) is not checked again, so a thread costs one
    query per replica; the set is emptied when it reaches `known_max` ids, so it stays small
    however many threads pass. Without a threads database every request goes straight on.
    """

    def __init__(self, app: ASGIApp, known_max: int = 100_000) -> None:
        self.app = app
        self.known: set[str] = set()
        self.known_max = known_max

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Adopt the thread the path names, if it must be; then serve the request."""
        match = _THREAD_PATH.match(scope.get("path", "")) if scope["type"] == "http" else None
        url = threads_database() if match else ""
        if not match or not url or match[1].lower() in self.known:
            await self.app(scope, receive, send)
            return
        thread_id = match[1].lower()
        if await has_checkpoints(url, thread_id):
            await adopt(thread_id)

        async def remember(message: Message) -> None:
            if message["type"] == "http.response.start" and 200 <= message["status"] < 300:
                if len(self.known) >= self.known_max:
                    self.known.clear()
                self.known.add(thread_id)
            await send(message)

        await self.app(scope, receive, remember)


async def adopt(thread_id: str) -> None:
    """Register `thread_id` with this server (a no-op when it has the thread already)."""
    from langgraph_sdk import get_client

    # the server's own API, in-process: POST /threads names no thread in its path
    client = get_client(url=None)
    await client.threads.create(thread_id=thread_id, if_exists="do_nothing", graph_id=GRAPH)
