"""`resin chat --database`: a thread goes on in a second process after the first is killed -9."""

import os
import selectors
import signal
import subprocess
import sys
import time

import psycopg
import pytest

from ..conftest import FIRST, FOLLOW_UP

pytestmark = pytest.mark.slow


# `resin chat` in a process of its own that serves the rule-based model as `fake` first: the
# production command offers no fake spec.
_CHAT = (
    "import sys; from evals.scripted import register_fake; register_fake(); "
    "from resin.cli import main; sys.exit(main(sys.argv[1:]))"
)


def chat_cmd(index, url, thread):
    chat = [sys.executable, "-c", _CHAT, "chat", "--index", str(index), "--database", url]
    return [*chat, "--model", "fake", "--thread", thread]


def read_until(proc, marker: str, count: int, timeout: float, err) -> str:
    """The process's stdout until `marker` has appeared `count` times (prompts end no line)."""
    seen, deadline = b"", time.monotonic() + timeout
    # a selector, not select(): a worker that has opened many files hands out descriptors past
    # select()'s limit
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ)
        while seen.decode(errors="replace").count(marker) < count:
            left = deadline - time.monotonic()
            assert left > 0 and proc.poll() is None, (
                f"no {marker!r} x{count} in {seen!r}; stderr: {err.read_text()[-2000:]}"
            )
            if selector.select(left):
                seen += os.read(proc.stdout.fileno(), 4096)
    return seen.decode()


def test_a_thread_continues_in_another_process_after_kill_9(sample_index, postgres_url, tmp_path):
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    cmd = chat_cmd(sample_index, postgres_url, "orrin")
    err = tmp_path / "first.err"
    with err.open("w") as err_file:
        first = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err_file, env=env
        )
        try:
            first.stdin.write(f"{FIRST}\n".encode())
            first.stdin.flush()
            # the answer, then the next prompt: the turn is over and its checkpoints written
            answered = read_until(first, "you> ", 2, timeout=300, err=err)
        finally:
            first.send_signal(signal.SIGKILL)
            first.wait()
    assert first.returncode == -signal.SIGKILL
    assert "resin> Hessa Varn" in answered
    with psycopg.connect(postgres_url) as conn:
        (saved,) = conn.execute(
            "SELECT count(*) FROM checkpoints WHERE thread_id = 'orrin'"
        ).fetchone()
    assert saved > 0
    second = subprocess.run(
        cmd, input=f"{FOLLOW_UP}\n", capture_output=True, text=True, env=env, timeout=300
    )
    assert second.returncode == 0, second.stderr
    # the resumed thread shows the first turn, and the follow-up is read with it
    assert f"you> {FIRST}" in second.stderr and "resin> Hessa Varn" in second.stderr
    assert "(read as: Where was Hessa Varn born?)" in second.stderr
    assert not (sample_index / "chat.sqlite").exists()


def test_a_turn_after_the_server_dropped_the_connection_reconnects(postgres_url):
    from langgraph.graph import START, MessagesState, StateGraph

    from resin.cli.checkpoints import postgres_saver

    echo = StateGraph(MessagesState)
    echo.add_node("echo", lambda state: {"messages": [("ai", "ok")]})
    echo.add_edge(START, "echo")
    config = {"configurable": {"thread_id": "dropped"}}
    with postgres_saver(postgres_url) as saver:
        graph = echo.compile(checkpointer=saver)
        graph.invoke({"messages": [("user", "one")]}, config, durability="sync")
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            (dropped,) = conn.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            ).fetchone()
        assert dropped == 1
        graph.invoke({"messages": [("user", "two")]}, config, durability="sync")
        assert len(graph.get_state(config).values["messages"]) == 4
