"""Where an index is (a folder, or a database and a Chroma server); the errors that name it.

One resolution of an index path, made by the process that opens it, and the messages that
repeat where it is (password masked) so the command they suggest works as given.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from resin.indexes.documents import DEFAULT_PASSAGE_CHARS
from resin.indexes.graph import DEFAULT_MERGE_THRESHOLD


class IndexMismatchError(RuntimeError):
    """The index on disk was built in a way this run cannot extend or read correctly."""


class IndexNotFoundError(FileNotFoundError):
    """No index where one was asked for: only `resin index` makes one."""


class IndexPathError(ValueError):
    """An index path that cannot hold an index: a file, or a folder that cannot be made."""


class BackendError(ValueError):
    """A choice of stores that cannot work: PostgreSQL with vectors on one machine's disk."""


def resolve_index_path(path: Path | str) -> Path:
    """The absolute folder an index path names: a relative one is under the working directory.

    The one resolution of an index path (the CLI's `--index`, a context's `index_path`, a test's
    or benchmark's folder), made when the index is opened, by the process that opens it.
    """
    return (Path.cwd() / Path(path).expanduser()).resolve()


def missing_index_message(given: Path | str) -> str:
    """Names the folder that holds no index, and for a relative path what it was taken from."""
    given = Path(given)
    where = resolve_index_path(given)
    relative = (
        "" if given.expanduser().is_absolute() else f" ({str(given)!r} taken from {Path.cwd()})"
    )
    if where.exists() and not where.is_dir():
        return f"index path {where}{relative} is a file: give --index (RESIN_INDEX) a folder"
    return f"no resin index at {where}{relative}; build one with `resin index DOCS --index {where}`"


def index_command(config: IndexConfig, action: str) -> str:
    """`resin index ACTION` for the index `config` names, repeating where it is (password masked)."""
    from resin.indexes.database import shown_url

    where = f" --database {shown_url(config.database)}" if config.database else ""
    if config.chroma_host:
        where += f" --chroma-host {config.chroma_host} --chroma-port {config.chroma_port}"
    return f"resin index {action} --index {config.path}{where}"


def migrate_command(config: IndexConfig) -> str:
    """The command that moves an index's vectors into its own collections."""
    return index_command(config, "--migrate")


@dataclass(frozen=True)
class IndexConfig:
    """Where the index lives (an absolute folder, or a PostgreSQL URL) and how it is built."""

    path: Path
    # postgresql://…: catalog, graph and manifest there, vectors on the Chroma server
    database: str | None = None
    chroma_host: str | None = None
    chroma_port: int = 8000
    passage_chars: int = DEFAULT_PASSAGE_CHARS
    merge_threshold: float = DEFAULT_MERGE_THRESHOLD

    def where(self) -> str:
        """The index's place for messages: its database (password masked), else its folder."""
        if self.database:
            from resin.indexes.database import shown_url

            return f"database {shown_url(self.database)}"
        return str(self.path)
