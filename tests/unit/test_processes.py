"""`resin.testing.processes.running`: a server and whatever it started end with the block."""

import os
import sys
import time

from resin.testing.processes import free_port, running


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie waiting for its reaper counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_a_server_s_own_children_end_with_it(tmp_path):
    """As `langgraph dev` leaves its bundler behind: a child the server started outlives it."""
    port, pid_file = free_port(), tmp_path / "child.pid"
    server = f"{sys.executable} -m http.server {port} --bind 127.0.0.1"
    cmd = ["sh", "-c", f"sleep 300 & echo $! > {pid_file}; exec {server}"]
    with running(cmd, f"http://127.0.0.1:{port}/", cwd=tmp_path) as proc:
        child = int(pid_file.read_text())
        assert alive(child) and os.getpgid(child) == proc.pid
    deadline = time.monotonic() + 10
    while alive(child) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(child)
