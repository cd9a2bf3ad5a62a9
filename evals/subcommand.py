"""How evals/ adds a subcommand to resin's parser: `eval` and `doctor` share one shape.

The module docstring is the subcommand's description (shown as written), and `args.func` is the
handler resin's CLI calls.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any


def add_subcommand(
    subparsers: Any, name: str, summary: str, description: str | None, handler: Callable[..., int]
) -> argparse.ArgumentParser:
    """`name` under `subparsers`: `summary` in resin's list, `description` as written, `func` = `handler`."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        name,
        help=summary,
        description=description,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.set_defaults(func=handler)
    return p
