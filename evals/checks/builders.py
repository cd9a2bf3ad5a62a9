"""Concurrent builders: while one holds an index, another refuses naming it, or waits its turn.

The holder is a thread of this process under the build lock (`indexes.locks`); the lock is the
OS's, so a builder in another process meets it the same way (tests/unit/test_builder_lock.py).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any


def check_builders(work: Path, embedder: Any, figures: dict[str, Any]) -> None:
    """A builder with `wait=False` refuses naming the holder; one that waits builds after it."""
    from indexes.build import Builder
    from indexes.documents import Document
    from indexes.index import open_index
    from indexes.locks import IndexBusyError, builder_lock

    figures["trials_run"] += 1
    index = open_index(work / "builders-index", embedder, create=True)
    doc = Document(id="orrin", title="Orrin Dam", text="The Orrin Dam was designed by Hessa Varn.")
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with builder_lock(index.config.path):
            held.set()
            release.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait(30)
    try:
        Builder(index, None, wait=False).run([doc])
        figures["problems"].append("a builder with wait=False built while another held the index")
    except IndexBusyError as exc:
        figures["builders_refused"] += f"pid {os.getpid()}" in str(exc)
    told: list[str] = []
    reports: list[Any] = []
    waiting = threading.Thread(
        target=lambda: reports.append(Builder(index, None, on_wait=told.append).run([doc]))
    )
    waiting.start()
    waiting.join(1.0)
    early = bool(reports)  # it must still be waiting
    release.set()
    holder.join(30)
    waiting.join(60)
    built = bool(reports) and reports[0].documents_indexed == 1
    figures["builders_waited"] += built and not early and len(told) == 1
    if early or not built:
        figures["problems"].append(f"the waiting builder: early={early}, built={built}")
    index.close()
