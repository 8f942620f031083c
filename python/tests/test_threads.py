"""Threads: two contexts in two threads at once give the rows each gives
alone; one context shared by two threads is taken in turn; and the GIL is
released while the device works, so other Python threads keep running."""

import threading
import time

import numpy as np

import clxcorr
from conftest import moved, speckle


def run_in_threads(jobs):
    """Runs each job (a function) in its own thread, all started together;
    returns their results, re-raising the first error."""
    results, errors = [None] * len(jobs), []
    start = threading.Barrier(len(jobs))

    def worker(k):
        try:
            start.wait()
            results[k] = jobs[k]()
        except Exception as e:     # noqa: BLE001 - re-raised in the main thread
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(len(jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results


def test_two_contexts_at_once(texture, windows):
    reference, stack, _ = texture
    jobs_data = [(reference, stack, {}), (stack[3], stack[::-1], {"mode": "seed"})]
    with clxcorr.Context() as a, clxcorr.Context() as b:
        alone = [ctx.offsets(r, s, windows, **o) for ctx, (r, s, o) in zip((a, b), jobs_data)]
        for _ in range(3):
            together = run_in_threads([lambda ctx=ctx, job=job: ctx.offsets(job[0], job[1], windows, **job[2])
                                       for ctx, job in zip((a, b), jobs_data)])
            for got, want in zip(together, alone):
                np.testing.assert_array_equal(got, want)


def test_one_context_in_two_threads(ctx, texture, windows):
    """Calls on one context from two threads wait for each other (the
    library allows one thread at a time in a context) and stay correct."""
    reference, stack, _ = texture
    alone = ctx.offsets(reference, stack, windows, batch=2)
    together = run_in_threads([lambda: ctx.offsets(reference, stack, windows, batch=2)] * 2)
    for got in together:
        np.testing.assert_array_equal(got, alone)


def test_gil_released_while_the_device_works(ctx):
    """While one thread waits for a long batch, the main thread runs Python
    all along: its longest pause is far shorter than the device call."""
    base = speckle(256, 256, seed=5)
    reference = np.round(100 + 3800 * base).astype(np.float32)
    images = np.stack([np.round(100 + 3800 * moved(base, 0.1 * k, -0.1 * k)) for k in range(8)]).astype(np.float32)
    windows = clxcorr.grid(reference, count=(4, 4), size=(48, 48), margin=16)
    stream = ctx.offsets_stream(reference, images, windows, batch=len(images))
    done, timing = threading.Event(), {}

    def device_work():
        t = time.perf_counter()
        timing["rows"] = np.concatenate(list(stream))
        timing["seconds"] = time.perf_counter() - t
        done.set()

    worker = threading.Thread(target=device_work)
    worker.start()
    longest, last, spins = 0.0, time.perf_counter(), 0
    while not done.is_set():
        now = time.perf_counter()
        longest, last, spins = max(longest, now - last), now, spins + 1
    worker.join()
    assert len(timing["rows"]) == 8 * 16
    print(f"device call {timing['seconds']:.3f} s; the main thread spun {spins} times, "
          f"its longest pause {longest * 1000:.1f} ms")
    assert longest < timing["seconds"] / 2
