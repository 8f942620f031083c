#!/usr/bin/env python3
"""What the Python package adds to the time of a job: `clxcorr offsets` on a
set against the same job through clxcorr.Context.offsets.

    bench/python-overhead.py [--runs N] [--mode MODE] [--clxcorr PATH] DIR

DIR holds reference.tif, image_*.tif and regions.txt (`make sample-data`
writes samples/data). Each run, alternately:

  cli        the command as a user runs it, a process of its own:
             clxcorr offsets --regions DIR/regions.txt DIR/reference.tif DIR/image_*.tif > file
  arrays     in this process: open a Context, read the TIFFs with clxcorr.imread
             into a stack, ctx.offsets(reference, stack, windows)
  files      in this process: open a Context, ctx.offsets on the file names
  process    a Python process of its own doing `arrays` (interpreter, numpy
             and clxcorr imports included)

Both open their device and make their plan in every run, as the command
does. One warm-up run of each first (kernels compiled and cached, files in
the page cache, the method measured). Prints every run and the medians,
with each form's difference from the command's median: of the wall-clock
time, and of the CPU time (user + system, of every thread: PoCL's workers
are threads of the process), which other processes on a shared machine
disturb less.
"""

import argparse
import glob
import os
import platform
import resource
import statistics
import subprocess
import sys
import time

import numpy as np

import clxcorr


def cpu_seconds(who):
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def timed(who, work):
    """(wall, CPU) seconds of work(); who: RUSAGE_SELF or, for a child process, RUSAGE_CHILDREN."""
    cpu, wall = cpu_seconds(who), time.perf_counter()
    work()
    return time.perf_counter() - wall, cpu_seconds(who) - cpu


def cli_run(cli, d, paths, mode):
    def work():
        with open(os.devnull, "w") as out:
            subprocess.run([cli, "offsets", "--mode", mode, "--regions", f"{d}/regions.txt", f"{d}/reference.tif"]
                           + paths, stdout=out, check=True)
    return timed(resource.RUSAGE_CHILDREN, work)


def arrays_run(d, paths, mode):
    def work():
        with clxcorr.Context() as ctx:
            reference = clxcorr.imread(f"{d}/reference.tif")
            stack = np.stack([clxcorr.imread(p) for p in paths])
            ctx.offsets(reference, stack, clxcorr.read_windows(f"{d}/regions.txt"), mode=mode)
    return timed(resource.RUSAGE_SELF, work)


def files_run(d, paths, mode):
    def work():
        with clxcorr.Context() as ctx:
            ctx.offsets(f"{d}/reference.tif", paths, clxcorr.read_windows(f"{d}/regions.txt"), mode=mode)
    return timed(resource.RUSAGE_SELF, work)


PROCESS = """
import sys, numpy as np, clxcorr
d, mode, paths = sys.argv[1], sys.argv[2], sys.argv[3:]
with clxcorr.Context() as ctx:
    reference = clxcorr.imread(d + "/reference.tif")
    stack = np.stack([clxcorr.imread(p) for p in paths])
    ctx.offsets(reference, stack, clxcorr.read_windows(d + "/regions.txt"), mode=mode)
"""


def process_run(d, paths, mode):
    return timed(resource.RUSAGE_CHILDREN,
                 lambda: subprocess.run([sys.executable, "-c", PROCESS, d, mode] + paths, check=True))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dir")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--mode", default="accurate")
    parser.add_argument("--clxcorr", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src",
                                                          "clxcorr"))
    a = parser.parse_args()
    d = os.path.abspath(a.dir)
    paths = sorted(glob.glob(f"{d}/image_*.tif"))
    forms = {
        "cli": lambda: cli_run(a.clxcorr, d, paths, a.mode),
        "arrays": lambda: arrays_run(d, paths, a.mode),
        "files": lambda: files_run(d, paths, a.mode),
        "process": lambda: process_run(d, paths, a.mode),
    }
    device = clxcorr.devices()[0] if clxcorr.devices() else None
    print(f"# {len(paths)} images of {clxcorr.imread(paths[0]).shape}, {len(clxcorr.read_windows(d + '/regions.txt'))}"
          f" windows, mode {a.mode}; {device}; {platform.processor() or platform.machine()}, {os.cpu_count()} cores;"
          f" Python {platform.python_version()}, numpy {np.__version__}; load {os.getloadavg()[0]:.2f}")
    for run in forms.values():
        run()
    wall = {name: [] for name in forms}
    cpu = {name: [] for name in forms}
    for k in range(a.runs):
        for name, run in forms.items():
            w, c = run()
            wall[name].append(w)
            cpu[name].append(c)
        print(f"run {k + 1}: " + "  ".join(f"{name} {wall[name][-1]:.3f} s ({cpu[name][-1]:.2f} s CPU)"
                                          for name in forms), flush=True)
    for label, times in (("wall", wall), ("CPU", cpu)):
        reference = statistics.median(times["cli"])
        for name in forms:
            median = statistics.median(times[name])
            print(f"{label:4s} {name:8s} median {median:.3f} s  min {min(times[name]):.3f} s  "
                  f"max {max(times[name]):.3f} s  vs cli {100 * (median / reference - 1):+.1f} %")
    print(f"# load {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
