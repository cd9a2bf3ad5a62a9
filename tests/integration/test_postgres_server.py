"""The throwaway PostgreSQL of evals/postgres.py: started, reached, then stopped and removed."""

import tempfile
from pathlib import Path
from urllib.parse import urlsplit

import psycopg
import pytest

from resin.evals.postgres import PG_BIN_ENV, PostgresError, find_bin, postgres

pytestmark = pytest.mark.skipif(find_bin() is None, reason="no PostgreSQL binaries")


def server_folder(url: str) -> Path:
    """The folder of the server at `url`: the one holding its socket (other servers may run)."""
    port = urlsplit(url).port
    (folder,) = Path(tempfile.gettempdir()).glob(f"resin-pg-*/sockets/.s.PGSQL.{port}")
    return folder.parents[1]


def test_the_server_is_stopped_and_its_folder_removed_after_the_block():
    with postgres("two words") as url:
        assert url.endswith("/two%20words")
        with psycopg.connect(url) as conn:
            assert conn.execute("SELECT current_database()").fetchone() == ("two words",)
        folder = server_folder(url)
        assert (folder / "data" / "PG_VERSION").exists()
    assert not folder.exists()
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(url, connect_timeout=2)


def test_a_bin_folder_without_postgresql_is_named(monkeypatch, tmp_path):
    monkeypatch.setenv(PG_BIN_ENV, str(tmp_path))
    with pytest.raises(PostgresError, match=f"{PG_BIN_ENV}={tmp_path}: no initdb and postgres"):
        find_bin()


def test_a_server_that_exits_at_start_is_reported_with_its_log(monkeypatch):
    with tempfile.TemporaryDirectory() as folder:
        fake = Path(folder)
        fake.chmod(0o755)  # the server user (nobody, under root) runs what is in it
        (fake / "initdb").symlink_to(find_bin() / "initdb")
        (fake / "postgres").write_text("#!/bin/sh\necho 'FATAL:  broken on purpose'\nexit 3\n")
        (fake / "postgres").chmod(0o755)
        monkeypatch.setenv(PG_BIN_ENV, folder)
        with pytest.raises(PostgresError, match="exited with 3(.|\n)*broken on purpose"):
            with postgres():
                pass
