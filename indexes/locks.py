"""One builder at a time per index: an OS file lock in the index folder.

Readers never take it. The holder writes its pid and start time into the lock file, so a second
builder can say who it waits for, or refuse with that name (`wait=False`). The OS drops the lock
when the holder's process ends, however it ends (a kill -9 included), so a stale lock cannot stay.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

LOCK_NAME = "build.lock"


class IndexBusyError(RuntimeError):
    """Another builder holds the index and the caller chose not to wait."""


def _holder(handle: IO[str]) -> str:
    """Who holds the lock, as its file says ("pid 123, started 2026-12-03 10:00:00")."""
    handle.seek(0)
    try:
        info = json.loads(handle.read() or "{}")
    except ValueError:
        info = {}
    started = info.get("started")
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(started)) if started else "?"
    return f"pid {info.get('pid', '?')}, started {when}"


@contextmanager
def builder_lock(
    folder: Path, wait: bool = True, on_wait: Callable[[str], None] | None = None
) -> Iterator[None]:
    """Hold the index's build lock for the block; wait for it, or raise `IndexBusyError`."""
    with open(folder / LOCK_NAME, "a+", encoding="utf-8") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(handle)
            if not wait:
                raise IndexBusyError(
                    f"index {folder} is being built by another builder ({holder}); "
                    "wait for it, or run again without --no-wait (RESIN_NO_WAIT)"
                ) from None
            if on_wait is not None:
                on_wait(f"waiting for the builder of index {folder} ({holder})")
            fcntl.flock(handle, fcntl.LOCK_EX)
        handle.seek(0)
        handle.truncate()
        handle.write(json.dumps({"pid": os.getpid(), "started": time.time()}))
        handle.flush()
        try:
            yield
        finally:
            handle.seek(0)
            handle.truncate()
            handle.flush()
            fcntl.flock(handle, fcntl.LOCK_UN)
