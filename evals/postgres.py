"""A throwaway PostgreSQL server on loopback, for the tests and for trying `resin chat --database`.

    python -m resin.evals.postgres              # prints the URL, serves until Ctrl-C, then removes it

The binaries come from `RESIN_PG_BIN` (a folder holding `initdb` and `postgres`), else from PATH,
else from Debian's `/usr/lib/postgresql/*/bin` (the newest). `initdb` refuses to run as root, so
a root process runs the server as `nobody` (uid 65534, through `setpriv`), in a temporary folder
that user owns; any other user runs it as itself. The data is not fsynced: it lives as long as
the server does.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

from resin.testing.processes import free_port

PG_BIN_ENV = "RESIN_PG_BIN"
NOBODY = 65534
_DEBIAN_BINS = Path("/usr/lib/postgresql")


class PostgresError(RuntimeError):
    """The server could not be found, started or reached; the message says which, and why."""


def find_bin() -> Path | None:
    """The folder of `initdb` and `postgres`, or None when PostgreSQL is not installed."""
    named = os.environ.get(PG_BIN_ENV)
    if named:
        folder = Path(named)
        if not ((folder / "initdb").is_file() and (folder / "postgres").is_file()):
            raise PostgresError(f"{PG_BIN_ENV}={named}: no initdb and postgres in that folder")
        return folder
    on_path = shutil.which("initdb")
    if on_path and shutil.which("postgres"):
        return Path(on_path).parent
    versions = [p for p in _DEBIAN_BINS.glob("*/bin") if (p / "initdb").is_file()]
    versions.sort(key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else -1)
    return versions[-1] if versions else None


def _as_server_user(cmd: list[str]) -> list[str]:
    """`cmd` as an unprivileged user when this process is root (PostgreSQL will not run as root)."""
    if os.geteuid() != 0:
        return cmd
    setpriv = shutil.which("setpriv")
    if not setpriv:
        raise PostgresError("running as root and no setpriv to start PostgreSQL as nobody")
    return [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", *cmd]


def _log_tail(log: Path, lines: int = 15) -> str:
    text = log.read_text(errors="replace") if log.exists() else ""
    return "\n".join(text.splitlines()[-lines:]) or "(the log is empty)"


def _connectable(url: str) -> bool:
    import psycopg

    try:
        psycopg.connect(url, connect_timeout=2).close()
        return True
    except psycopg.OperationalError:
        return False


class Server:
    """A throwaway server that is running: its database's `url`, and `restart` to bounce it."""

    def __init__(self, bin_dir: Path, root: Path, timeout: float) -> None:
        self.bin_dir, self.root, self.timeout = bin_dir, root, timeout
        self.data, self.log = root / "data", root / "server.log"
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = ""

    def start(self) -> None:
        """Start the server on its port and wait until it accepts connections."""
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                _as_server_user(
                    [str(self.bin_dir / "postgres"), "-D", str(self.data)]
                    + ["-k", str(self.root / "sockets"), "-h", "127.0.0.1", "-p", str(self.port)]
                    + ["-c", "fsync=off"]
                ),
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + self.timeout
        while not _connectable(f"postgresql://postgres@127.0.0.1:{self.port}/postgres"):
            if self.proc.poll() is not None:
                raise PostgresError(
                    f"postgres exited with {self.proc.returncode} before it accepted "
                    f"connections; its log ends:\n{_log_tail(self.log)}"
                )
            if time.monotonic() > deadline:
                raise PostgresError(
                    f"postgres on port {self.port} accepted no connection within "
                    f"{self.timeout:.0f}s; its log ends:\n{_log_tail(self.log)}"
                )
            time.sleep(0.1)

    def stop(self) -> None:
        """Stop the server (a fast shutdown: every client's connection is dropped)."""
        if self.proc is not None:
            _stop(self.proc, self.timeout)

    def restart(self) -> None:
        """Stop the server and start it again on the same port and data."""
        self.stop()
        self.start()


@contextmanager
def postgres(database: str = "resin", timeout: float = 60.0) -> Iterator[str]:
    """Run a fresh server for the block and yield the URL of an empty `database` on it."""
    with postgres_server(database, timeout) as server:
        yield server.url


@contextmanager
def postgres_server(database: str = "resin", timeout: float = 60.0) -> Iterator[Server]:
    """Run a fresh server for the block and yield it, `url` naming an empty `database` on it.

    The server is stopped by its pid when the block ends: a fast shutdown (SIGINT, what
    `pg_ctl stop` sends; SIGTERM would wait for every client to disconnect), then SIGKILL after
    `timeout` seconds. Its folder is removed. A server that does not accept connections within
    `timeout` raises PostgresError with the tail of its log.
    """
    import psycopg
    from psycopg import sql

    bin_dir = find_bin()
    if bin_dir is None:
        raise PostgresError(
            f"no PostgreSQL binaries: install postgresql (Debian: postgresql-15), put initdb "
            f"and postgres on PATH, or set {PG_BIN_ENV}"
        )
    root = Path(tempfile.mkdtemp(prefix="resin-pg-"))
    server = Server(bin_dir, root, timeout)
    (root / "sockets").mkdir()
    if os.geteuid() == 0:
        for path in (root, root / "sockets"):
            os.chown(path, NOBODY, NOBODY)
    try:
        initdb = subprocess.run(
            _as_server_user(
                [str(bin_dir / "initdb"), "-D", str(server.data), "-U", "postgres"]
                + ["--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"]
            ),
            capture_output=True,
            text=True,
        )
        if initdb.returncode != 0:
            raise PostgresError(f"initdb failed ({initdb.returncode}): {initdb.stderr.strip()}")
        server.start()
        base = f"postgresql://postgres@127.0.0.1:{server.port}"
        with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)))
        server.url = f"{base}/{quote(database, safe='')}"
        yield server
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


def create_database(url: str, name: str) -> str:
    """A fresh database on the server of `url` (one index per database); its URL."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return url.rsplit("/", 1)[0] + f"/{name}"


def _stop(proc: subprocess.Popen[bytes], timeout: float) -> None:
    """Fast shutdown by pid, then SIGKILL if the server has not exited within `timeout`."""
    if proc.poll() is not None:
        return
    os.kill(proc.pid, signal.SIGINT)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()


def main(argv: list[str] | None = None) -> int:
    """`python -m resin.evals.postgres`: serve a throwaway database until Ctrl-C."""
    parser = argparse.ArgumentParser(prog="python -m resin.evals.postgres", description=__doc__)
    parser.add_argument("--database", default="resin", help="database to create (default resin)")
    args = parser.parse_args(argv)
    # `kill PID` stops it as Ctrl-C does: the block below removes the server and its folder
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    started = time.monotonic()
    try:
        with postgres(args.database) as url:
            print(f"PostgreSQL ready in {time.monotonic() - started:.1f}s at {url}", flush=True)
            print(f"export RESIN_DATABASE_URL={url}   # Ctrl-C stops it and deletes it", flush=True)
            try:
                signal.pause()
            except KeyboardInterrupt:
                print("stopping", flush=True)
    except PostgresError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
