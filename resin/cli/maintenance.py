"""`resin index --check` and `--repair`: do the catalog, Chroma and the graph agree; mend them."""

from __future__ import annotations

import sys
from typing import Any


def check_index_command(index: Any) -> int:
    """Check the opened `index`, then close it: 0 when its stores agree, else 1.

    The repair command it prints names the database and Chroma server in use.
    """
    from resin.indexes.index_config import index_command
    from resin.indexes.integrity import check_index

    try:
        found = check_index(index)
    finally:
        index.close()
    print("\n".join(found.lines()))
    if found.consistent:
        return 0
    print(f"`{index_command(index.config, '--repair')}` makes them agree again")
    return 1


def repair_index_command(index: Any, wait: bool, on_wait: Any) -> int:
    """Mend the index, then check it; 0 when it is consistent."""
    from resin.indexes.build import Builder
    from resin.indexes.integrity import check_index, repair_index
    from resin.indexes.nlp_extraction import NlpExtractor

    # no model: a repair reads the extraction cache, and parses what the cache lacks
    builder = Builder(index, None, nlp=NlpExtractor(), wait=wait, on_wait=on_wait)
    repaired = repair_index(builder)
    print(f"repaired index {index.config.path}: {repaired.summary()}")
    for problem in repaired.unmended:
        print(f"error: {problem}", file=sys.stderr)
    found = check_index(index)
    print("\n".join(found.lines()))
    return 0 if found.consistent and not repaired.unmended else 1
