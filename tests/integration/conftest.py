"""Servers the integration tests share: a throwaway PostgreSQL for the session, a Chroma server
per module."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator

import pytest

from resin.testing.processes import free_port, running


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """The URL of an empty database on a PostgreSQL started for this session, then removed."""
    from resin.evals.postgres import PG_BIN_ENV, find_bin, postgres

    if find_bin() is None:
        pytest.skip(
            f"no PostgreSQL binaries: install postgresql (Debian: postgresql-15), put initdb "
            f"and postgres on PATH, or set {PG_BIN_ENV}"
        )
    with postgres() as url:
        yield url


@pytest.fixture(scope="module")
def chroma_port(tmp_path_factory):
    """A real `chroma run` server on loopback, shared by this module's tests."""
    chroma = shutil.which("chroma") or str(sys.prefix) + "/bin/chroma"
    port = free_port()
    path = tmp_path_factory.mktemp("chroma-server")
    cmd = [chroma, "run", "--path", str(path), "--host", "127.0.0.1", "--port", str(port)]
    with running(cmd, f"http://127.0.0.1:{port}/api/v2/heartbeat"):
        yield port
