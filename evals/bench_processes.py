"""The processes of a benchmark: workers in fresh interpreters, the servers, their memory.

Each measured build or replica runs in an interpreter of its own (`run_worker`), so none
inherits another's caches, models or memory; the servers (a `chroma run`, PostgreSQL) are
measured apart, by PSS, as their processes share pages.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from resin.testing.processes import free_port


def status_mb(field: str, pid: int | str = "self") -> float:
    """A /proc/PID/status memory line (VmRSS, VmHWM) in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    return 0.0


def pss_mb(pid: int) -> float:
    """Proportional set size of a process and its descendants, in MB.

    A server's processes share memory (PostgreSQL's buffers): PSS counts each page once.
    """
    todo, total = [pid], 0.0
    while todo:
        current = todo.pop()
        try:
            for line in Path(f"/proc/{current}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1]) / 1024
            for task in Path(f"/proc/{current}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue  # exited meanwhile
    return total


def run_worker(module: str, job: dict[str, Any], label: str) -> dict[str, Any]:
    """Run one job of `module` in a fresh interpreter; its JSON result (the last line it prints)."""
    done = subprocess.run(
        [sys.executable, "-m", module, "--worker", json.dumps(job)],
        stdout=subprocess.PIPE,
        text=True,
        check=False,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"worker {label} failed ({done.returncode})")
    result: dict[str, Any] = json.loads(lines[-1])
    return result


@contextmanager
def chroma_server(path: Path) -> Iterator[tuple[int, int]]:
    """A `chroma run` server on a free loopback port: (port, pid)."""
    from resin.testing.processes import running

    chroma = shutil.which("chroma") or str(Path(sys.prefix) / "bin" / "chroma")
    port = free_port()
    cmd = [chroma, "run", "--path", str(path), "--host", "127.0.0.1", "--port", str(port)]
    with running(cmd, f"http://127.0.0.1:{port}/api/v2/heartbeat") as proc:
        yield port, proc.pid


def postmaster_pid(url: str) -> int:
    """The pid of the PostgreSQL server `url` names (this machine's), from its data folder."""
    import psycopg

    with psycopg.connect(url) as conn:
        row = conn.execute("SHOW data_directory").fetchone()
    return int((Path(row[0]) / "postmaster.pid").read_text().split()[0]) if row else 0
