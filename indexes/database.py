"""What every command needs of a PostgreSQL URL without the driver: its error and its shown form.

PostgreSQL is an optional engine (the ``postgres`` extra): the driver is imported only by the
modules that talk to a database, and a missing one is a `DatabaseError` naming the extra.
"""

from __future__ import annotations

import importlib.util
import re
from urllib.parse import urlsplit

_DRIVER = ("psycopg", "psycopg_pool", "langgraph.checkpoint.postgres")


class DatabaseError(RuntimeError):
    """A database that is no PostgreSQL URL, cannot be reached, or holds another schema version."""


# a password given as a parameter: `?password=…` in a URL, `password=…` in a libpq string
_PASSWORD_PARAMETER = re.compile(r"(password=)[^&\s]+", re.IGNORECASE)


def shown_url(url: str) -> str:
    """`url` with its password masked, fit for a message."""
    parts = urlsplit(url)
    if parts.password:
        url = parts._replace(netloc=parts.netloc.replace(f":{parts.password}@", ":***@")).geturl()
    return _PASSWORD_PARAMETER.sub(r"\1***", url)


def check_url(url: str) -> None:
    """Refuse a database setting that is no postgresql:// URL, before any driver sees it."""
    if urlsplit(url).scheme not in ("postgresql", "postgres") or "://" not in url:
        raise DatabaseError(
            f"--database (RESIN_DATABASE_URL) {shown_url(url)!r} is no PostgreSQL URL: "
            "give postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE"
        )


def database_failure(url: str, exc: BaseException) -> DatabaseError:
    """A driver's failure as one line naming the database, every secret in it masked."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    password = urlsplit(url).password
    if password:
        text = text.replace(password, "***")
    return DatabaseError(f"database {shown_url(url)}: {shown_url(text)}")


def database_failures() -> tuple[type[BaseException], ...]:
    """What the driver raises when a database fails under a command (none without the driver)."""
    try:
        import psycopg
        from psycopg_pool import PoolTimeout
    except ImportError:
        return ()
    return (psycopg.Error, PoolTimeout)


def require_driver() -> None:
    """Refuse a database URL where the ``postgres`` extra is not installed, naming the extra."""
    for module in _DRIVER:
        try:
            found = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:
            found = False
        if not found:
            raise DatabaseError(
                f"PostgreSQL support is not installed ({module} is missing): "
                "pip install 'resin-agent[postgres]'"
            )
