"""Run a server process on loopback until a block ends: for checks, benchmarks and tests."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

__all__ = ["free_port", "running"]


def free_port() -> int:
    """A loopback TCP port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def running(
    cmd: list[str],
    ready_url: str,
    timeout: float = 120.0,
    log: IO[Any] | None = None,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> Iterator[subprocess.Popen[bytes]]:
    """Run `cmd` until the block ends; wait until `ready_url` answers 200.

    `cwd` and `env`, when given, are the process's working directory and whole environment.
    The process leads a process group of its own, which is ended with it: `langgraph dev`
    stopped alone leaves its component bundler (`langgraphjs-ui watch`, under npx) running.
    """
    proc = subprocess.Popen(
        cmd,
        stdout=log or subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
        cwd=cwd,
        env=env,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"{cmd[0]} exited with {proc.returncode} before it was ready")
            try:
                with urllib.request.urlopen(ready_url, timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"{ready_url} did not answer within {timeout}s")
            time.sleep(0.5)
        yield proc
    finally:
        _signal_group(proc, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        _signal_group(proc, signal.SIGKILL)  # what the group's processes left behind


def _signal_group(proc: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    """Send `sig` to the process group `proc` leads; nothing when the group has ended."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, sig)
