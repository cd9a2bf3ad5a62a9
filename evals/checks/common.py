"""What more than one doctor check needs: the sample corpus, its index, and process gauges.

The hostile and concurrency checks (and tests/unit/test_reliability.py) read the same sample
index; the concurrency check watches memory and open files with the same gauges.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from resin.evals.hostile import HOSTILE_DOCS

SAMPLE_DOCS = Path(__file__).resolve().parents[2] / "agent" / "sample" / "docs"


def rss_mb() -> float:
    """Resident memory of this process in MiB (peak RSS where /proc is missing)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def open_files() -> int:
    """How many file descriptors this process holds open (-1 where /proc is missing)."""
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:
        return -1


def build_sample_index(path: Path, embedder: Any, hostile: bool = True) -> Path:
    """The sample corpus (plus the hostile documents) indexed with the fake extractor."""
    from resin.indexes.build import Builder
    from resin.indexes.documents import Document
    from resin.indexes.opening import open_index
    from resin.indexes.reading import load_documents
    from resin.testing import chat

    docs, _ = load_documents([SAMPLE_DOCS])
    if hostile:
        docs += [Document(id=d["id"], title=d["title"], text=d["text"]) for d in HOSTILE_DOCS]
    index = open_index(path, embedder, create=True)
    Builder(index, chat.rule_based()).run(docs)
    index.close()
    return path
