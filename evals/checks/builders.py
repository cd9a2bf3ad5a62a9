"""Concurrent builders: while one holds an index, another refuses naming it, or waits its turn.

The holder is a thread of this process under the build lock (`resin.indexes.locks`); the lock is the
OS's, so a builder in another process meets it the same way (tests/unit/test_builder_lock.py).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


@contextmanager
def held_by_a_thread(folder: Path) -> Iterator[threading.Event]:
    """The index's build lock held by another thread for the block.

    Setting the event yielded lets it go before the block ends.
    """
    from resin.indexes.locks import builder_lock

    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with builder_lock(folder):
            held.set()
            release.wait(60)

    thread = threading.Thread(target=hold)
    thread.start()
    try:
        if not held.wait(30):
            raise TimeoutError(f"no thread took the build lock of {folder}")
        yield release
    finally:
        release.set()
        thread.join()


def check_builders(work: Path, embedder: Any, figures: dict[str, Any]) -> None:
    """A builder with `wait=False` refuses naming the holder; one that waits builds after it."""
    from resin.indexes.build import Builder
    from resin.indexes.documents import Document
    from resin.indexes.locks import IndexBusyError
    from resin.indexes.opening import open_index

    figures["trials_run"] += 1
    index = open_index(work / "builders-index", embedder, create=True)
    doc = Document(id="orrin", title="Orrin Dam", text="The Orrin Dam was designed by Hessa Varn.")
    told: list[str] = []
    reports: list[Any] = []
    waiting = threading.Thread(
        target=lambda: reports.append(Builder(index, None, on_wait=told.append).run([doc]))
    )
    with held_by_a_thread(index.config.path) as release:
        try:
            Builder(index, None, wait=False).run([doc])
            figures["problems"].append("a builder with wait=False built while another held it")
        except IndexBusyError as exc:
            figures["builders_refused"] += f"pid {os.getpid()}" in str(exc)
        waiting.start()
        waiting.join(1.0)
        early = bool(reports)  # it must still be waiting
        release.set()
    waiting.join(60)
    built = bool(reports) and reports[0].documents_indexed == 1
    figures["builders_waited"] += built and not early and len(told) == 1
    if early or not built:
        figures["problems"].append(f"the waiting builder: early={early}, built={built}")
    index.close()
