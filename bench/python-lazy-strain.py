#!/usr/bin/env python3
"""A lazy kikuchipy signal streamed through clxcorr.strain: resident memory
and patterns/s, against `clxcorr strain` on the same h5ebsd file.

    bench/python-lazy-strain.py [--rows R] [--cols C] [--runs N] [--device D] [--clxcorr PATH] DIR

Writes DIR/scan.h5 with kikuchipy (EBSD.save, its h5ebsd writer) unless it
is there: R x C (100 x 100: 10,000) patterns of 60 x 60, uint8, kikuchipy's
bundled nickel_ebsd_small's first pattern (a real Ni pattern) at every
point with Poisson noise of its own (16 counts a grey level), its detector (pc, 70 degrees sample
tilt) and 1.5 um steps. Then, alternately, N runs of each:

  cli      clxcorr strain --device D --grid 3x3 --window 24x24 --margin 6
           -o OUT DIR/scan.h5#0,0 DIR/scan.h5  (a process of its own)
  python   a Python process of its own: kp.load(DIR/scan.h5, lazy=True),
           clxcorr.strain((0, 0), signal, windows, context=Context(D)):
           the dask array read band by band through the package's loader

Each run's wall-clock time (the command's whole process; the Python
process's Context + strain call, imports and kp.load excluded and reported
apart), its patterns/s, and the Python process's peak resident memory
(getrusage's ru_maxrss), with its resident memory before the call (the
interpreter, numpy, dask, kikuchipy, clxcorr). The command's own peak
too (wait4's rusage). The first pair of runs is a warm-up, not counted.
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

WINDOW_ARGS = ["--grid", "3x3", "--window", "24x24", "--margin", "6"]


def rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def current_rss_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def write_scan(path, rows, cols):
    import numpy as np
    import kikuchipy as kp
    small = kp.data.nickel_ebsd_small()
    one = small.data[0, 0].astype(np.float64)      # one crystal: every fit succeeds
    rng = np.random.default_rng(35)
    data = np.empty((rows, cols, 60, 60), dtype=np.uint8)
    for r in range(rows):
        noisy = rng.poisson(np.broadcast_to(16 * one, (cols, 60, 60))) / 16
        data[r] = np.clip(np.round(noisy), 0, 255).astype(np.uint8)
    s = kp.signals.EBSD(data)
    s.detector = kp.detectors.EBSDDetector(shape=(60, 60), pc=small.detector.pc_average, sample_tilt=70, tilt=0,
                                           px_size=70, binning=8)
    for axis in s.axes_manager.navigation_axes:
        axis.scale = 1.5
        axis.units = "um"
    s.save(path, overwrite=True)


def python_run(args):
    """This process is one `python` run: prints a JSON line."""
    t0 = time.perf_counter()
    import kikuchipy as kp
    import numpy as np
    import clxcorr
    signal = kp.load(args.path, lazy=True)
    windows = clxcorr.grid((60, 60), (3, 3), (24, 24), margin=6)
    before = current_rss_mb()
    t1 = time.perf_counter()
    with clxcorr.Context(args.device) as ctx:
        result = clxcorr.strain((0, 0), signal, windows, context=ctx)
    t2 = time.perf_counter()
    n = result["e11"].size
    print(json.dumps({"seconds": t2 - t1, "setup_seconds": t1 - t0, "patterns": n, "rss_before_mb": before,
                      "peak_rss_mb": rss_mb(), "measured": int(np.isfinite(result["e11"]).sum()),
                      "chunks": str(signal.data.chunksize)}))


def cli_run(clxcorr, device, path, out):
    """(seconds, peak RSS MB) of one command run."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([clxcorr, "strain", "-q", "--device", device] + WINDOW_ARGS +
                            ["-o", out, path + "#0,0", path])
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit(f"clxcorr strain failed ({proc.returncode})")
    return seconds, usage.ru_maxrss / 1024


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dir")
    p.add_argument("--rows", type=int, default=100)
    p.add_argument("--cols", type=int, default=100)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--device", default="pocl")
    p.add_argument("--clxcorr", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src",
                                                     "clxcorr"))
    p.add_argument("--python-run", dest="path", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.path:
        python_run(args)
        return
    os.makedirs(args.dir, exist_ok=True)
    path = os.path.join(args.dir, "scan.h5")
    if not os.path.exists(path):
        t = time.perf_counter()
        write_scan(path, args.rows, args.cols)
        print(f"wrote {path} with kikuchipy in {time.perf_counter() - t:.1f} s "
              f"({os.path.getsize(path) / 2**20:.1f} MiB)")
    out = os.path.join(args.dir, "strain.csv")
    n = args.rows * args.cols
    # Warm-up: kernels compiled and cached, the file in the page cache.
    cli_run(args.clxcorr, args.device, path, out)
    cli, py, cli_rss = [], [], []
    for run in range(args.runs + 1):
        seconds, peak = cli_run(args.clxcorr, args.device, path, out)
        cli.append(seconds)
        cli_rss.append(peak)
        line = subprocess.run([sys.executable, os.path.abspath(__file__), args.dir, "--device", args.device,
                               "--python-run", path], check=True, capture_output=True, text=True).stdout
        py.append(json.loads(line.strip().splitlines()[-1]))
        print(f"run {run}: cli {cli[-1]:.2f} s ({n / cli[-1]:.0f} patterns/s, peak RSS {peak:.0f} MB); python {py[-1]['seconds']:.2f} s "
              f"({n / py[-1]['seconds']:.0f} patterns/s), peak RSS {py[-1]['peak_rss_mb']:.0f} MB "
              f"(before the call {py[-1]['rss_before_mb']:.0f} MB), setup {py[-1]['setup_seconds']:.1f} s, "
              f"chunks {py[-1]['chunks']}, {py[-1]['measured']} patterns measured", flush=True)
    cli, py = cli[1:], py[1:]       # the first pair warms the python side too
    c = statistics.median(cli)
    s = statistics.median(r["seconds"] for r in py)
    print(f"median of {args.runs}: cli {c:.2f} s = {n / c:.0f} patterns/s; python {s:.2f} s = {n / s:.0f} "
          f"patterns/s ({100 * c / s:.0f} % of the command's rate); python peak RSS max "
          f"{max(r['peak_rss_mb'] for r in py):.0f} MB; command peak RSS {max(cli_rss):.0f} MB")


if __name__ == "__main__":
    main()
