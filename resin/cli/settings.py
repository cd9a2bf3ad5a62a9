"""The RESIN_* variable of each setting of `resin index`, `stats`, `ask`, `chat` and `demo`.

A deployment configures its processes by environment only, so every setting flag has one
variable, read when the parser is built; a flag on the command line wins over its variable.
Actions (--check, --delete, --migrate-to, ...) and output choices (--json, --trace) have none.
`settings_table` is the table in docs/deployment.md: tests/unit/test_settings.py keeps the two
equal, and prints the table when they differ.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from typing import Any

# flag -> variable; the server's run context reads the same names (`resin.agent.context`)
ENV: dict[str, str] = {
    "--index": "RESIN_INDEX",
    "--database": "RESIN_DATABASE_URL",
    "--chroma-host": "RESIN_CHROMA_HOST",
    "--chroma-port": "RESIN_CHROMA_PORT",
    "--embedder": "RESIN_EMBEDDER",
    "--model": "RESIN_MODEL",
    "--plan-model": "RESIN_PLAN_MODEL",
    "--hop-model": "RESIN_HOP_MODEL",
    "--compose-model": "RESIN_COMPOSE_MODEL",
    "--answer-mode": "RESIN_ANSWER_MODE",
    "--k": "RESIN_K",
    "--extract": "RESIN_EXTRACT",
    "--passage-chars": "RESIN_PASSAGE_CHARS",
    "--merge-threshold": "RESIN_MERGE_THRESHOLD",
    "--concurrency": "RESIN_CONCURRENCY",
    "--no-wait": "RESIN_NO_WAIT",
    "--thread": "RESIN_THREAD",
}
COMMANDS = ("index", "stats", "ask", "chat", "demo")
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


def named(flag: str) -> str:
    """A flag with its variable, for messages: ``--chroma-host (RESIN_CHROMA_HOST)``."""
    return f"{flag} ({ENV[flag]})"


@dataclass(frozen=True)
class Invalid:
    """A variable whose value its flag would refuse: the default left in its place."""

    variable: str
    value: str
    reason: str

    def message(self) -> str:
        """The one line that refuses it."""
        return f"{self.variable}={self.value!r}: {self.reason}"


def _flag(action: argparse.Action) -> str | None:
    return next((s for s in action.option_strings if s in ENV), None)


def _from_env(action: argparse.Action, raw: str, variable: str, flag: str) -> Any:
    """`raw` as the flag would take it, or `Invalid` saying why not."""
    if action.nargs == 0:  # a switch (store_true)
        if raw.strip().lower() in _TRUE + _FALSE:
            return raw.strip().lower() in _TRUE
        return Invalid(variable, raw, f"give one of {', '.join(_TRUE + _FALSE)}")
    try:
        value = action.type(raw) if callable(action.type) else raw
    except (ValueError, TypeError, argparse.ArgumentTypeError) as exc:
        return Invalid(variable, raw, f"{flag} refuses it ({exc})")
    if action.choices is not None and value not in action.choices:
        return Invalid(variable, raw, f"give one of {', '.join(map(str, action.choices))}")
    return value


def apply_environment(parser: argparse.ArgumentParser) -> None:
    """Default each setting of the `COMMANDS` subparsers to its variable, and name it in --help."""
    for name, sub in _subparsers(parser).items():
        if name not in COMMANDS:
            continue
        for action in sub._actions:
            flag = _flag(action)
            if flag is None:
                continue
            variable = ENV[flag]
            action.help = f"{action.help} [env {variable}]"
            raw = os.environ.get(variable)
            if raw:
                action.default = _from_env(action, raw, variable, flag)


def invalid_setting(args: argparse.Namespace) -> str | None:
    """The first variable the parsed command took whose value is refused, as a message."""
    bad = next((v for v in vars(args).values() if isinstance(v, Invalid)), None)
    return bad.message() if bad else None


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def settings_table(parser: argparse.ArgumentParser) -> str:
    """The Markdown table of every variable: its flag, the commands that take it, its meaning.

    A flag whose help differs between commands (--model, --database) gets each meaning after
    the commands it is theirs.
    """
    rows: dict[str, dict[str, list[str]]] = {}
    for name, sub in _subparsers(parser).items():
        if name not in COMMANDS:
            continue
        for action in sub._actions:
            flag = _flag(action)
            if flag is not None:
                rows.setdefault(flag, {}).setdefault(_meaning(action), []).append(name)
    lines = ["| variable | flag | commands | setting |", "|---|---|---|---|"]
    for flag in sorted(rows, key=list(ENV).index):
        meanings = rows[flag]
        commands = ", ".join(c for names in meanings.values() for c in names)
        setting = (
            next(iter(meanings))
            if len(meanings) == 1
            else "; ".join(f"{', '.join(names)}: {text}" for text, names in meanings.items())
        )
        lines.append(f"| `{ENV[flag]}` | `{flag}` | {commands} | {setting} |")
    return "\n".join(lines)


def _meaning(action: argparse.Action) -> str:
    text = str(action.help or "").rsplit(" [env ", 1)[0].replace("%%", "%")
    if action.nargs == 0:
        text += " (a switch: 1 or 0)"
    return text.replace("|", "\\|")
