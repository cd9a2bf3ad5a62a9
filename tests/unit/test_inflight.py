import threading
import time

import pytest

from resin.indexes.inflight import ordered_map


def test_results_come_in_input_order_with_at_most_n_calls_at_once():
    lock = threading.Lock()
    running = peak = 0
    # the first four calls pass only together: four run at once, whatever the machine's load
    together = threading.Barrier(4, timeout=30)

    def slow(i):
        nonlocal running, peak
        with lock:
            running += 1
            peak = max(peak, running)
        if i < 4:
            together.wait()
        time.sleep(0.02 * (i % 3))  # later items often finish first
        with lock:
            running -= 1
        return i * i

    assert list(ordered_map(slow, range(40), 4)) == [i * i for i in range(40)]
    assert peak == 4


def test_one_at_a_time_runs_in_the_calling_thread():
    threads = set(ordered_map(lambda _: threading.get_ident(), range(5), 1))
    assert threads == {threading.get_ident()}


def test_an_error_reaches_the_consumer_at_its_item_and_closing_cancels_the_rest():
    started = []

    def fail_at_three(i):
        started.append(i)
        if i == 3:
            raise ValueError("three")
        time.sleep(0.01)
        return i

    results = ordered_map(fail_at_three, range(1000), 2)
    assert [next(results) for _ in range(3)] == [0, 1, 2]
    with pytest.raises(ValueError, match="three"):
        next(results)
    results.close()
    time.sleep(0.05)
    assert len(started) < 1000
