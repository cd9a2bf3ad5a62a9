"""Servers the integration tests share: a throwaway PostgreSQL for the session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """The URL of an empty database on a PostgreSQL started for this session, then removed."""
    from evals.postgres import PG_BIN_ENV, find_bin, postgres

    if find_bin() is None:
        pytest.skip(
            f"no PostgreSQL binaries: install postgresql (Debian: postgresql-15), put initdb "
            f"and postgres on PATH, or set {PG_BIN_ENV}"
        )
    with postgres() as url:
        yield url
