"""Long jobs: a run in a thread of its own, followed and stopped from the caller's.

The library's run (the GIL released) goes on in a worker thread while the
calling thread waits in short, interruptible steps: it reports progress
(a callable, or tqdm's bar) from the rows the run has delivered, and on
Ctrl-C (KeyboardInterrupt), or any exception the progress callable raises,
it asks the run to stop (the stream's cancelled flag, polled before each
pattern is loaded), waits for it (the batches in flight finish, nothing is
left running) and hands the exception back with what was delivered.
"""

import threading

import numpy as np

#: Seconds between looks at the run (progress, Ctrl-C).
POLL = 0.05


def _reporter(progress, total):
    """(report(done, total), close()) for the progress keyword, or (None, None)."""
    if progress is None or progress is False:
        return None, None
    if progress is True:
        try:
            from tqdm.auto import tqdm
        except ImportError:
            return None, None
        bar = tqdm(total=total, unit="pattern", desc="clxcorr strain")

        def report(done, total):
            bar.update(done - bar.n)
        return report, bar.close
    if not callable(progress):
        raise TypeError(f"progress: expected a callable(done, total) or True, got {progress!r}")
    return progress, None


def run(call, total, progress):
    """call(state) in a worker thread, state the int64 pair the extension
    shares ([0] stop, [1] delivered). Returns (call's tuple + (delivered,),
    None), or (that, the exception) when the caller's thread was
    interrupted (the run stopped; the tuple's rows hold what was delivered)."""
    report, close = _reporter(progress, total)
    state = np.zeros(2, dtype=np.int64)
    out = {}
    # Waited on rather than Thread.join: a join interrupted by Ctrl-C marks a
    # thread still running as stopped in Python 3.11 and before.
    finished = threading.Event()

    def work():
        try:
            out["value"] = call(state)
        except BaseException as e:      # noqa: BLE001 - raised in the caller's thread
            out["error"] = e
        finally:
            finished.set()

    worker = threading.Thread(target=work, name="clxcorr-run", daemon=True)
    worker.start()
    interrupt = None
    last = -1
    try:
        while not finished.wait(POLL):
            done = int(state[1])
            if report is not None and done != last and total is not None:
                last = done
                report(done, total)
        if report is not None and total is not None and last != int(state[1]):
            report(int(state[1]), total)
    except BaseException as e:          # noqa: BLE001 - Ctrl-C, or the progress callable's
        interrupt = e
        state[0] = 1
        while not finished.is_set():
            try:
                finished.wait(POLL)
            except BaseException:       # noqa: BLE001 - a second Ctrl-C: still stopping
                state[0] = 1
    finally:
        if close is not None:
            close()
    if "value" not in out:
        if interrupt is not None:
            raise interrupt
        raise out["error"]
    return out["value"] + (int(state[1]),), interrupt
