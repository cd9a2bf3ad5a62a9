"""What every command needs of a PostgreSQL URL without the driver: its error and its shown form.

PostgreSQL is an optional engine (the ``postgres`` extra): the driver is imported only by the
modules that talk to a database, and a missing one is a `DatabaseError` naming the extra.
"""

from __future__ import annotations

import importlib.util
from urllib.parse import urlsplit

_DRIVER = ("psycopg", "psycopg_pool", "langgraph.checkpoint.postgres")


class DatabaseError(RuntimeError):
    """A database that is no PostgreSQL URL, cannot be reached, or holds another schema version."""


def shown_url(url: str) -> str:
    """`url` with its password masked, fit for a message."""
    parts = urlsplit(url)
    if not parts.password:
        return url
    return parts._replace(netloc=parts.netloc.replace(f":{parts.password}@", ":***@")).geturl()


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
