"""Which passages write which entity names, in SQLite: the mentions and the scans' progress.

A part of `catalog.Catalog`: new passages are scanned for the known names as they are written,
new names for every passage once at the end of a build (`unscanned` keeps them across a crash).
"""

from __future__ import annotations

from collections.abc import Iterable

from resin.indexes.sqlite_db import SqliteDb


class Mentions(SqliteDb):
    """The `mentions`, `scanned` and `unscanned` tables of a SQLite catalog."""

    def add_mentions(self, pairs: Iterable[tuple[str, str]]) -> None:
        """Record (normalized name, passage id) pairs."""
        with self.transaction() as db:
            db.executemany("INSERT OR IGNORE INTO mentions VALUES (?,?)", list(pairs))

    def mention_pairs(self) -> list[tuple[str, str]]:
        """Every (normalized name, passage id) pair recorded, in no set order."""
        return [tuple(r) for r in self.db.execute("SELECT name, pid FROM mentions")]

    def stray_mentions(self) -> list[str]:
        """The passages that mentions name but the catalog does not hold."""
        rows = self.db.execute(
            "SELECT DISTINCT pid FROM mentions WHERE pid NOT IN (SELECT pid FROM passages)"
        )
        return [r[0] for r in rows]

    def drop_stray_mentions(self) -> None:
        """Forget the mentions of passages the catalog does not hold."""
        with self.transaction() as db:
            db.execute("DELETE FROM mentions WHERE pid NOT IN (SELECT pid FROM passages)")

    def mentioning(self, name_key: str, limit: int = -1) -> list[str]:
        """Passages whose text mentions the normalized name (at most `limit`; -1: all)."""
        rows = self.db.execute("SELECT pid FROM mentions WHERE name=? LIMIT ?", (name_key, limit))
        return [r[0] for r in rows]

    def mentioned_in(self, pid: str) -> list[str]:
        """Normalized names mentioned in a passage."""
        return [r[0] for r in self.db.execute("SELECT name FROM mentions WHERE pid=?", (pid,))]

    def scanned_names(self) -> set[str]:
        """Every name that all passages have been scanned for."""
        return {r[0] for r in self.db.execute("SELECT name FROM scanned")}

    def mark_scanned(self, names: Iterable[str]) -> None:
        """Remember that every passage has been scanned for these names."""
        rows = [(n,) for n in names]
        with self.transaction() as db:
            db.executemany("INSERT OR IGNORE INTO scanned VALUES (?)", rows)
            db.executemany("DELETE FROM unscanned WHERE name=?", rows)

    def add_unscanned(self, names: Iterable[str]) -> None:
        """Names to scan every passage for at the end of a build (kept across a crash)."""
        with self.transaction() as db:
            db.executemany("INSERT OR IGNORE INTO unscanned VALUES (?)", [(n,) for n in names])

    def unscanned_names(self) -> set[str]:
        """Names waiting for their scan."""
        return {r[0] for r in self.db.execute("SELECT name FROM unscanned")}

    def forget_names(self, names: Iterable[str]) -> None:
        """Drop the mentions of names that no longer exist."""
        with self.transaction() as db:
            for name in names:
                db.execute("DELETE FROM mentions WHERE name=?", (name,))
                db.execute("DELETE FROM scanned WHERE name=?", (name,))
                db.execute("DELETE FROM unscanned WHERE name=?", (name,))
