"""The LangGraph server's checkpointer and thread adoption, without a server (resin.agent.threads).

Two real replicas on a real PostgreSQL: tests/integration/test_shared_threads.py.
"""

from __future__ import annotations

import asyncio

import pytest

from resin.agent import threads
from resin.agent.threads import SharedThreads, postgres_checkpointer, threads_database
from resin.indexes.database import DatabaseError
from resin.testing.processes import free_port

THREAD = "01a24e34-8aa7-76e5-af08-14b929522606"


@pytest.fixture(autouse=True)
def no_database(monkeypatch):
    for name in threads.THREADS_ENV:
        monkeypatch.delenv(name, raising=False)


def test_the_threads_database_is_the_dedicated_one_else_the_index_s(monkeypatch):
    assert threads_database() == ""
    monkeypatch.setenv("RESIN_DATABASE_URL", "postgresql://db/index")
    assert threads_database() == "postgresql://db/index"
    monkeypatch.setenv("RESIN_THREADS_DATABASE_URL", "postgresql://db/threads")
    assert threads_database() == "postgresql://db/threads"


async def _open(url: str) -> None:
    async with postgres_checkpointer(url):
        pass


def test_a_url_that_is_no_postgresql_url_is_one_line_without_its_password():
    with pytest.raises(DatabaseError) as raised:
        asyncio.run(_open("mysql://resin:s3cret@db/threads"))
    message = str(raised.value)
    assert message.startswith("database 'mysql://resin:***@db/threads' is no PostgreSQL URL")
    assert "\n" not in message and "s3cret" not in message


def test_an_unreachable_server_is_one_line_without_its_password():
    port = free_port()
    with pytest.raises(DatabaseError) as raised:
        asyncio.run(_open(f"postgresql://resin:s3cret@127.0.0.1:{port}/threads"))
    message = str(raised.value)
    assert message.startswith(f"database postgresql://resin:***@127.0.0.1:{port}/threads: ")
    assert "\n" not in message and "s3cret" not in message


class _App:
    """An ASGI app that answers `status` and records the paths it served."""

    def __init__(self, status: int = 200) -> None:
        self.status, self.paths = status, []

    async def __call__(self, scope, receive, send) -> None:
        self.paths.append(scope["path"])
        await send({"type": "http.response.start", "status": self.status, "headers": []})
        await send({"type": "http.response.body", "body": b""})


def _serve(middleware: SharedThreads, path: str) -> list[dict]:
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": b""}

    async def send(message: dict) -> None:
        sent.append(message)

    asyncio.run(middleware({"type": "http", "path": path}, receive, send))
    return sent


def _adopted(monkeypatch, holds: bool) -> list[str]:
    """Make the shared checkpoints hold every thread (or none); record the threads adopted."""
    adopted: list[str] = []

    async def has_checkpoints(url: str, thread_id: str) -> bool:
        return holds

    async def adopt(thread_id: str) -> None:
        adopted.append(thread_id)

    monkeypatch.setattr(threads, "has_checkpoints", has_checkpoints)
    monkeypatch.setattr(threads, "adopt", adopt)
    return adopted


def test_without_a_threads_database_every_request_goes_straight_on(monkeypatch):
    adopted = _adopted(monkeypatch, holds=True)
    app = _App()
    sent = _serve(SharedThreads(app), f"/threads/{THREAD}/state")
    assert app.paths == [f"/threads/{THREAD}/state"] and sent[0]["status"] == 200
    assert adopted == []


def test_a_thread_held_by_the_shared_checkpoints_is_adopted_once(monkeypatch):
    monkeypatch.setenv("RESIN_DATABASE_URL", "postgresql://db/resin")
    adopted = _adopted(monkeypatch, holds=True)
    middleware = SharedThreads(_App())
    for path in (f"/threads/{THREAD}", f"/threads/{THREAD.upper()}/runs", "/threads", "/ok"):
        _serve(middleware, path)
    assert adopted == [THREAD]


def test_a_thread_not_served_yet_is_checked_again_and_not_adopted_when_absent(monkeypatch):
    monkeypatch.setenv("RESIN_DATABASE_URL", "postgresql://db/resin")
    adopted = _adopted(monkeypatch, holds=False)
    missing = SharedThreads(_App(status=404))
    for _ in range(2):
        assert _serve(missing, f"/threads/{THREAD}")[0]["status"] == 404
    assert adopted == [] and missing.known == set()


def test_the_threads_served_are_forgotten_past_a_bound(monkeypatch):
    monkeypatch.setenv("RESIN_DATABASE_URL", "postgresql://db/resin")
    adopted = _adopted(monkeypatch, holds=True)
    middleware = SharedThreads(_App(), known_max=2)
    others = [f"{n}{THREAD[1:]}" for n in "abc"]
    for thread in [*others, others[0]]:
        _serve(middleware, f"/threads/{thread}")
    assert len(middleware.known) <= 2
    assert adopted == [*others, others[0]]  # the first was forgotten: checked again
