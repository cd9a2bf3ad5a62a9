"""`resin chat --database`: a bad URL or a server that is not there is one error line, exit 1."""

import io

import pytest

from resin.cli import main
from resin.testing.processes import free_port


@pytest.fixture
def chat(sample_index, monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    monkeypatch.delenv("RESIN_DATABASE_URL", raising=False)

    def run(*database: str) -> tuple[int, list[str]]:
        status = main(["chat", "--index", str(sample_index), "--model", "fake", *database])
        return status, capsys.readouterr().err.splitlines()

    return run


def test_a_database_that_is_no_postgresql_url_is_refused(chat, sample_index):
    status, err = chat("--database", "chat.db")
    assert status == 1
    assert err == [
        "error: --database (RESIN_DATABASE_URL) 'chat.db' is no PostgreSQL URL: "
        "give postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE"
    ]
    assert not (sample_index / "chat.sqlite").exists()


def test_an_unreachable_server_is_named_without_its_password(chat):
    port = free_port()
    status, err = chat("--database", f"postgresql://resin:s3cret@127.0.0.1:{port}/resin")
    assert status == 1 and len(err) == 1
    assert err[0].startswith(f"error: database postgresql://resin:***@127.0.0.1:{port}/resin: ")
    assert "Connection refused" in err[0] and "s3cret" not in err[0]


def test_the_database_of_the_environment_holds_the_index_too(chat, monkeypatch):
    """RESIN_DATABASE_URL names the index's database as well as the threads': with no Chroma
    server for its vectors, the chat is refused in one line before any thread is opened."""
    monkeypatch.setenv("RESIN_DATABASE_URL", "postgresql://127.0.0.1:notaport/resin")
    status, err = chat()
    assert status == 2 and len(err) == 1
    assert err[0].startswith("error: --database keeps the catalog") and "--chroma-host" in err[0]
