"""A graph's JSON file: read as networkx wrote it, written atomically (temp file, fsync, rename)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import networkx as nx


class GraphUnreadableError(ValueError):
    """The graph file is not a graph resin wrote (truncated, overwritten)."""


def read_graph(path: Path) -> nx.DiGraph:
    """The graph in the file at `path` (ValueError, KeyError or TypeError when it is not one)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return nx.node_link_graph(data, directed=True, edges="links")


def write_graph(g: nx.DiGraph, path: Path) -> None:
    """Write `g` to `path` atomically: a temp file in the same folder, then rename over.

    A kill at any point leaves the old file or the new one, whole.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    data = nx.node_link_data(g, edges="links")
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".graph-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, ensure_ascii=False)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
