#!/usr/bin/env python3
"""bench/hrebsd-peer.py - clxcorr strain beside de-ebsd's HR-EBSD on the same
kikuchipy patterns, in the same command: the error against the truth in
kikuchipy's sample frame, and patterns per second.

    make  python3 bench/hrebsd-peer.py make OUT_DIR [--count N] [--size HxW]
          writes OUT_DIR/scan.h5 (kikuchipy h5ebsd, noise-free Ni patterns
          from its master pattern, each the reference crystal rotated by up to
          2 degrees and strained by up to 2e-3, detector tilt 0, per-point
          pattern centres from kikuchipy's beam-shift model; point (0, 0)
          the reference) and OUT_DIR/truth.csv; needs kikuchipy and orix.
          A second set, OUT_DIR/tune/, of other draws, is what de-ebsd's
          settings are chosen on.
    run   python3 bench/hrebsd-peer.py run OUT_DIR CLXCORR [--device cpu|cuda]
          [--rounds R] [--clxcorr-args "..."]
          times clxcorr strain on scan.h5 (its whole run, start-up and
          reading included; and its own patterns/s once its plans were ready)
          and de-ebsd's hrebsd on the patterns already in memory (reading and
          preprocessing not counted), round after round, and prints the
          errors and rates. de-ebsd's settings: its defaults, and the best of
          a grid of ROI size, ROI count, upsampling and passes on the tune/
          set. Needs numpy, h5py and de-ebsd (torch).

The errors are computed alike for both: F = I + beta (sample frame) = R U,
the deviatoric strain 3 U / tr U - I against the truth's, R's rotation
vector against the truth's; RMS over the components and the points.
"""
import argparse
import csv
import os
import re
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from strain_error import polar, rotation_vector  # noqa: E402 (bench/strain_error.py)


def errors(truth, e, w):
    """RMS strain and rotation errors; truth, e, w keyed by (row, col)."""
    de, dw = [], []
    for key, (te, tw) in truth.items():
        if key not in e or not np.all(np.isfinite(e[key])):
            return float("nan"), float("nan")
        de.extend(np.asarray(e[key]) - te)
        dw.extend(np.asarray(w[key]) - tw)
    return float(np.sqrt(np.mean(np.square(de)))), float(np.sqrt(np.mean(np.square(dw))))


def truth_read(path):
    out = {}
    for row in csv.DictReader(open(path)):
        key = (int(row["scan_row"]), int(row["scan_col"]))
        out[key] = (np.array([float(row[k]) for k in ("e11", "e12", "e13", "e22", "e23", "e33")]),
                    np.array([float(row[k]) for k in ("w1", "w2", "w3")]))
    return out


# ---- make ----------------------------------------------------------------------------------------

def make(out, count, shape, seed):
    sys.path.insert(0, os.path.join(HERE, "..", "tests", "data", "hrebsd"))
    import make_fixtures as mf
    from orix.quaternion import Rotation
    rows = int(np.sqrt(count))
    cols = (count + rows - 1) // rows
    mf.ROWS, mf.COLS = rows, cols
    mf.HEIGHT, mf.WIDTH = shape
    mf.HERE = out
    os.makedirs(out, exist_ok=True)
    mp, arrays = mf.master_pattern()
    g = Rotation.from_euler(np.deg2rad(mf.REFERENCE_EULER_DEG))
    rng = np.random.default_rng(seed)
    mf.write_scan(mp, arrays, 0, mf.deformations(rng, rows * cols), g)
    os.replace(os.path.join(out, "tilt_0.h5"), os.path.join(out, "scan.h5"))
    os.replace(os.path.join(out, "tilt_0_truth.csv"), os.path.join(out, "truth.csv"))


# ---- run -----------------------------------------------------------------------------------------

def clxcorr_run(clxcorr, scan, extra):
    args = [clxcorr, "strain", "-v", "--grid", "7x5", "--window", "64x64", "--margin", "16", "--remap"]
    args += extra.split() + ["-o", "/dev/stdout", scan + "#0,0", scan]
    start = time.perf_counter()
    done = subprocess.run(args, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit("clxcorr strain failed: " + done.stderr.strip().splitlines()[-1])
    e, w = {}, {}
    for row in csv.DictReader(done.stdout.splitlines()):
        key = (int(row["scan_row"]), int(row["scan_col"]))
        e[key] = [float(row[k]) for k in ("e11", "e12", "e13", "e22", "e23", "e33")]
        w[key] = [float(row[k]) for k in ("w1", "w2", "w3")]
    ready = re.search(r"in ([0-9.]+) s once the plans were ready \(([0-9.]+) images/s\)", done.stderr)
    return e, w, wall, float(ready.group(2)) if ready else float("nan"), done.stderr


def patterns_read(scan):
    import h5py
    with h5py.File(scan, "r") as f:
        d = f["Scan 1/EBSD/Data/patterns"][()]
        h = f["Scan 1/EBSD/Header"]
        rows, cols = int(h["n_rows"][()][0]), int(h["n_columns"][()][0])
        pc = np.stack([h["pcx"][()], h["pcy"][()], h["pcz"][()]], axis=-1).reshape(-1, 3)
        tilt, sample_tilt = float(h["elevation_angle"][()][0]), float(h["sample_tilt"][()][0])
    return d, rows, cols, pc, tilt, sample_tilt


def deebsd_run(scan, device, settings, patterns=None):
    import torch
    from de_ebsd.index.crosscorr import hrebsd
    from de_ebsd.index.preprocess import remove_dynamic_background
    from de_ebsd.sim.detector import EBSDDetector
    d, rows, cols, pc, tilt, sample_tilt = patterns if patterns else patterns_read(scan)
    det = EBSDDetector(shape=d.shape[1:], pattern_center=tuple(pc[0]), sample_tilt=sample_tilt, tilt=tilt)
    clean = remove_dynamic_background(d, device=device)
    pcs = torch.as_tensor(pc, device=device, dtype=torch.float32)
    if device == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    res = hrebsd(clean, clean[0], det, pattern_center=pcs, reference_pattern_center=pcs[0], device=device,
                 **settings)
    if device == "cuda":
        torch.cuda.synchronize()
    seconds = time.perf_counter() - start
    beta_s, _, _ = res.to_sample(det)
    beta_s = beta_s.double().cpu().numpy()
    e, w = {}, {}
    for i in range(rows * cols):
        r, u = polar(np.eye(3) + beta_s[i])
        dev = 3 * u / np.trace(u) - np.eye(3)
        e[(i // cols, i % cols)] = [dev[0, 0], dev[0, 1], dev[0, 2], dev[1, 1], dev[1, 2], dev[2, 2]]
        w[(i // cols, i % cols)] = rotation_vector(r)
    return e, w, seconds


SEARCH = [dict(roi_size=s, grid=g, upsample=u, n_passes=p)
          for s, g in ((48, 6), (64, 6), (64, 8), (96, 6), (128, 8)) for u in (50, 200) for p in (2, 3)]


def run(out, clxcorr, device, rounds, extra):
    truth = truth_read(os.path.join(out, "truth.csv"))
    tune_truth = truth_read(os.path.join(out, "tune", "truth.csv"))
    scan, tune_scan = os.path.join(out, "scan.h5"), os.path.join(out, "tune", "scan.h5")
    n = len(truth)
    print("clxcorr strain beside de-ebsd's hrebsd: %d kikuchipy patterns of %s, device %s" %
          (n, "x".join(map(str, patterns_read(scan)[0].shape[1:])), device))
    # de-ebsd's best settings, chosen on the tune/ set (other draws).
    tune_patterns = patterns_read(tune_scan)
    scored = []
    for s in SEARCH:
        try:
            e, w, _ = deebsd_run(tune_scan, device, s, tune_patterns)
        except Exception as err:  # settings the pattern size cannot take
            print("  de-ebsd %s: %s" % (s, err))
            continue
        se, we = errors(tune_truth, e, w)
        scored.append((se, we, s))
    scored.sort(key=lambda t: (np.nan_to_num(t[0], nan=1), t[1]))
    best = scored[0][2]
    print("de-ebsd's best on the tune set: %s (strain %.2e, rotation %.2e)" % (best, scored[0][0], scored[0][1]))
    data = patterns_read(scan)
    rows = []
    for k in range(rounds):
        e, w, wall, ready, log = clxcorr_run(clxcorr, scan, extra)
        se, we = errors(truth, e, w)
        rows.append(("clxcorr", k + 1, se, we, n / wall, ready))
        for name, s in (("de-ebsd defaults", {}), ("de-ebsd best", best)):
            e, w, seconds = deebsd_run(scan, device, s, data)
            se, we = errors(truth, e, w)
            rows.append((name, k + 1, se, we, n / seconds, float("nan")))
    print("%-18s %5s %10s %12s %14s %16s" % ("run", "round", "strain", "rotation", "patterns/s", "once ready"))
    for name, k, se, we, rate, ready in rows:
        print("%-18s %5d %10.2e %12.2e %14.1f %16.1f" % (name, k, se, we, rate, ready))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="what", required=True)
    m = sub.add_parser("make")
    m.add_argument("out")
    m.add_argument("--count", type=int, default=48)
    m.add_argument("--size", default="300x400")
    r = sub.add_parser("run")
    r.add_argument("out")
    r.add_argument("clxcorr")
    r.add_argument("--device", default="cpu")
    r.add_argument("--rounds", type=int, default=3)
    r.add_argument("--clxcorr-args", default="")
    a = p.parse_args()
    if a.what == "make":
        shape = tuple(int(v) for v in a.size.split("x"))
        make(a.out, a.count, shape, 5)
        make(os.path.join(a.out, "tune"), max(a.count // 2, 4), shape, 6)
    else:
        run(a.out, a.clxcorr, a.device, a.rounds, a.clxcorr_args)


if __name__ == "__main__":
    main()
