"""1,000 calls leave memory where it was: the process's resident size (the
library's and the driver's memory, which tracemalloc does not see) and
Python's own allocations (tracemalloc), after a warm-up that fills the
kernel and allocator caches."""

import gc
import os
import tracemalloc

import numpy as np
import pytest

import clxcorr
from tiff import write_tiff

CALLS = 1000
# Bounds on the growth over CALLS calls, well above what a run shows (RSS
# moves by allocator pages; a leak of one plan's buffers per call would be
# megabytes) and below any per-call leak of a result array or an image.
RSS_GROWTH = 4 << 20
PYTHON_GROWTH = 64 << 10


def resident_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc (Linux)")
def test_no_leak_over_1000_calls(ctx, texture, windows, tmp_path):
    reference, stack, _ = texture
    reference, images = reference.astype(np.uint16), stack[:2].astype(np.uint16)
    write_tiff(tmp_path / "image.tif", [images[0]])
    outside = [[80, 8, 24, 24]]

    # Small searches on the direct path: a few milliseconds a call on PoCL.
    fast = {"method": "direct", "max_shift": 3}

    def call(k):
        """One call of one of the package's paths, in turn."""
        if k % 4 == 0:
            ctx.offsets(reference, images, windows, mode="seed", **fast)
        elif k % 4 == 1:
            with ctx.offsets_stream(reference, iter(list(images)), windows, batch=1, **fast) as stream:
                for _ in stream:
                    pass
        elif k % 4 == 2:
            ctx.offsets(reference, [tmp_path / "image.tif"], windows, mode="seed", **fast)
            clxcorr.imread(tmp_path / "image.tif")
        else:
            try:
                ctx.offsets(reference, images, outside, **fast)
            except clxcorr.RegionError:
                pass

    for k in range(100):
        call(k)
    gc.collect()
    tracemalloc.start()
    before_python = tracemalloc.take_snapshot()
    before_rss = resident_bytes()
    for k in range(CALLS):
        call(k)
    gc.collect()
    rss_growth = resident_bytes() - before_rss
    growth = sum(s.size_diff for s in tracemalloc.take_snapshot().compare_to(before_python, "filename"))
    tracemalloc.stop()
    print(f"{CALLS} calls: resident size {rss_growth / 1024:+.0f} KiB, Python allocations {growth / 1024:+.1f} KiB")
    assert rss_growth < RSS_GROWTH
    assert growth < PYTHON_GROWTH
