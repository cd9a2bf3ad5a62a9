"""Where a report's figures come from: the header lines every report in evals/results starts with.

Four markdown list items: `- date: 2026-12-05 (UTC)`, `- commit: 85c4956 + uncommitted changes`
(`unknown` outside a git checkout), `- machine: <CPU model>, <N> cores, <RAM> GiB RAM, <OS>,
Python <version>` and `- command:` the command as given, in backticks.
"""

from __future__ import annotations

import datetime
import os
import platform
import shlex
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

# The checkout this module lives in (evals/ is a top-level folder of the repository).
REPO = Path(__file__).resolve().parent.parent


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", *args], cwd=REPO, capture_output=True, text=True, timeout=10, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout


def commit() -> str:
    """`git rev-parse --short HEAD`, plus "+ uncommitted changes" when tracked files differ.

    Reports under evals/results do not count: a command that writes its report as it goes (a
    size at a time) would otherwise call its own earlier write an uncommitted change.
    """
    head = _git("rev-parse", "--short", "HEAD")
    if not head or not head.strip():
        return "unknown"
    dirty = _git(
        "status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)evals/results"
    )
    return head.strip() + (" + uncommitted changes" if dirty and dirty.strip() else "")


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def _ram_gib() -> float | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (AttributeError, OSError, ValueError):
        return None


def machine() -> str:
    """CPU model, core count, RAM, OS and Python version, in one line."""
    ram = _ram_gib()
    return ", ".join(
        [
            _cpu_model(),
            f"{os.cpu_count()} cores",
            f"{ram:.1f} GiB RAM" if ram else "RAM unknown",
            platform.platform(),
            f"Python {platform.python_version()}",
        ]
    )


def command_of(module: str, argv: Sequence[str] | None = None) -> str:
    """`python -m MODULE ARGS` as it was run (ARGS default: this process's own)."""
    args = list(sys.argv[1:] if argv is None else argv)
    return " ".join(["python", "-m", module, *([shlex.join(args)] if args else [])])


def provenance(command: str) -> dict[str, str]:
    """Date (UTC, ISO), commit, machine and command, as a report's JSON records them."""
    return {
        "date": datetime.datetime.now(datetime.UTC).date().isoformat(),
        "commit": commit(),
        "machine": machine(),
        "command": command,
    }


def format_header(figures: dict[str, str]) -> list[str]:
    """`provenance`'s fields as the header's markdown list items."""
    return [
        f"- date: {figures['date']} (UTC)",
        f"- commit: {figures['commit']}",
        f"- machine: {figures['machine']}",
        f"- command: `{figures['command']}`",
    ]


def header_lines(command: str) -> list[str]:
    """The report header: date (UTC), commit, machine and the command, as markdown list items."""
    return format_header(provenance(command))
