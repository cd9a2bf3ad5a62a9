"""Calls to a model server kept in flight side by side, their results taken in order.

A server (vLLM, llama.cpp with parallel slots, a hosted API) answers many requests at once; one
at a time leaves it idle. The caller still sees results in input order, so what it writes is
written in the same order as a sequential run would write it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Generator, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

# Results computed ahead of the consumer, per allowed call: the consumer's own work (embedding,
# writes) then overlaps with the calls instead of draining them.
_AHEAD = 4


def ordered_map(fn: Callable[[T], R], items: Iterable[T], concurrency: int) -> Generator[R]:
    """`fn` over `items` with up to `concurrency` calls at once; results in the order of `items`.

    At most `_AHEAD * concurrency` results wait to be taken. With concurrency 1 it is plain `map`
    in the calling thread (no threads at all). Closing the iterator early cancels calls not begun.
    """
    if concurrency <= 1:
        yield from map(fn, items)
        return
    pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="resin-call")
    window: deque[Future[R]] = deque()
    try:
        for item in items:
            window.append(pool.submit(fn, item))
            if len(window) >= _AHEAD * concurrency:
                yield window.popleft().result()
        while window:
            yield window.popleft().result()
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
