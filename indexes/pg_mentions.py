"""Which passages write which entity names, in PostgreSQL: the mentions and the scans' progress.

A part of `PgCatalog`: new passages are scanned for the known names as they are written, new
names for every passage once at the end of a build (`unscanned` keeps them across a crash).
"""

from __future__ import annotations

from collections.abc import Iterable

from resin.indexes.pg_schema import PgRows, sql_limit


class PgMentions(PgRows):
    """The `mentions`, `scanned` and `unscanned` tables of a PostgreSQL catalog."""

    def add_mentions(self, pairs: Iterable[tuple[str, str]]) -> None:
        """Record (normalized name, passage id) pairs."""
        self._many("INSERT INTO mentions VALUES (%s,%s) ON CONFLICT DO NOTHING", list(pairs))

    def mention_pairs(self) -> list[tuple[str, str]]:
        """Every (normalized name, passage id) pair recorded, in no set order."""
        return [(r[0], r[1]) for r in self._rows("SELECT name, pid FROM mentions")]

    def stray_mentions(self) -> list[str]:
        """The passages that mentions name but the catalog does not hold."""
        rows = self._rows(
            "SELECT DISTINCT m.pid FROM mentions m WHERE NOT EXISTS "
            "(SELECT 1 FROM passages p WHERE p.pid = m.pid)"
        )
        return [r[0] for r in rows]

    def drop_stray_mentions(self) -> None:
        """Forget the mentions of passages the catalog does not hold."""
        with self.connection() as conn:
            conn.execute(
                "DELETE FROM mentions m WHERE NOT EXISTS "
                "(SELECT 1 FROM passages p WHERE p.pid = m.pid)"
            )

    def mentioning(self, name_key: str, limit: int = -1) -> list[str]:
        """Passages whose text mentions the normalized name (at most `limit`; -1: all)."""
        rows = self._rows(
            "SELECT pid FROM mentions WHERE name=%s ORDER BY pid LIMIT %s",
            (name_key, sql_limit(limit)),
        )
        return [r[0] for r in rows]

    def mentioned_in(self, pid: str) -> list[str]:
        """Normalized names mentioned in a passage."""
        return [r[0] for r in self._rows("SELECT name FROM mentions WHERE pid=%s", (pid,))]

    def scanned_names(self) -> set[str]:
        """Every name that all passages have been scanned for."""
        return {r[0] for r in self._rows("SELECT name FROM scanned")}

    def mark_scanned(self, names: Iterable[str]) -> None:
        """Remember that every passage has been scanned for these names, in one transaction."""
        self._add_names("scanned", names, done=True)

    def add_unscanned(self, names: Iterable[str]) -> None:
        """Names to scan every passage for at the end of a build (kept across a crash)."""
        self._add_names("unscanned", names)

    def _add_names(self, table: str, names: Iterable[str], done: bool = False) -> None:
        names = list(names)
        with self.connection() as conn:
            conn.execute(
                f"INSERT INTO {table} SELECT unnest(%s::text[]) ON CONFLICT DO NOTHING", (names,)
            )
            if done:
                conn.execute("DELETE FROM unscanned WHERE name = ANY(%s)", (names,))

    def unscanned_names(self) -> set[str]:
        """Names waiting for their scan."""
        return {r[0] for r in self._rows("SELECT name FROM unscanned")}

    def forget_names(self, names: Iterable[str]) -> None:
        """Drop the mentions and scans of names that no longer exist."""
        names = list(names)
        with self.connection() as conn:
            for table in ("mentions", "scanned", "unscanned"):
                conn.execute(f"DELETE FROM {table} WHERE name = ANY(%s)", (names,))
