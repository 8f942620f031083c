#!/usr/bin/env python3
"""piv_vortex.py - OpenPIV's windef on a frame pair, and the error of any
displacement fields against the pair's truth (bench/piv-vortex.sh).

    piv_vortex.py openpiv FRAME_A FRAME_B OUT.csv [--windows 64,32,32]
                  [--overlap 32,16,16] [--repeat N]
        runs openpiv.windef.simple_multipass (symmetric deformation, cubic
        interpolation, its default validation and replacement) and writes
        region,x,y,dx,dy in clxcorr's axes (y down, dy = -v); prints the best
        of N wall times and vectors per second.

    piv_vortex.py errors TRUTH.csv [--flow flow.txt] NAME=FIELD.csv ...
        rms and largest error of each field's dx, dy against truth_field.csv
        (clxcorr-samples --piv), window by window (matched by region), over
        every window and over the interior (windows whose centre is a window
        or more from the border). The truth is clxcorr's convention: the
        displacement of the particle that is at the window's centre in frame
        A. With --flow (the set's flow.txt), a second table measures each
        field against the convention of a symmetric window deformation
        without clxcorr's last step back to frame A (OpenPIV's windef): the
        displacement of the particle whose path's chord has its midpoint at
        the centre, (X_A + X_B)/2 = centre.
"""
import csv
import math
import sys
import time


def read_field(path):
    """region -> (x, y, dx, dy) from a CSV with those columns."""
    out = {}
    with open(path) as f:
        rows = csv.DictReader(line for line in f if not line.startswith("#"))
        for r in rows:
            out[int(r["region"])] = (float(r["x"]), float(r["y"]), float(r["dx"]), float(r["dy"]))
    return out


def run_openpiv(a_path, b_path, out_path, windows, overlap, repeat):
    # Only this needs numpy, tifffile and openpiv; the errors run on any python3.
    import numpy as np
    import tifffile
    from openpiv import windef

    a = tifffile.imread(a_path).astype(np.float64)
    b = tifffile.imread(b_path).astype(np.float64)
    s = windef.PIVSettings()
    s.windowsizes = tuple(windows)
    s.overlap = tuple(overlap)
    s.num_iterations = len(windows)
    s.show_plot = False
    s.save_plot = False
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        x, y, u, v, flags = windef.simple_multipass(a, b, s)
        best = min(best, time.perf_counter() - t0)
    # simple_multipass returns OpenPIV's physical axes: y rows reversed, v up.
    # Back to the image's: rows top to bottom as u and v are stored, dy = -v.
    y = y[::-1, :]
    dy = -np.asarray(v)
    ny, nx = np.asarray(u).shape
    with open(out_path, "w") as f:
        f.write("region,x,y,dx,dy\n")
        for j in range(ny):
            for i in range(nx):
                # OpenPIV's centre is window/2 from the edge; clxcorr's x0 + (w-1)/2.
                f.write("%d,%.1f,%.1f,%.6f,%.6f\n" % (j * nx + i, x[j, i] - 0.5, y[j, i] - 0.5, u[j, i], dy[j, i]))
    n = nx * ny
    print("openpiv %s windef: windows %s overlap %s, %d vectors, best of %d: %.3f s, %.0f vectors/s (one CPU "
          "process)" % (__import__("openpiv").__version__, ",".join(map(str, windows)),
                        ",".join(map(str, overlap)), n, repeat, best, n / best))


def read_flow(path):
    flow = {}
    for line in open(path):
        if line.strip() and not line.startswith("#"):
            key, value = line.split()[:2]
            flow[key] = value if key == "flow" else float(value)
    return flow


def advect(flow, x, y):
    """Frame A's point (x, y) in frame B: samples/flow.c's exact forms."""
    kind, dt = flow["flow"], flow.get("dt", 1.0)
    if kind == "uniform":
        return x + flow["u"] * dt, y + flow["v"] * dt
    cx, cy = flow["centre_x"], flow["centre_y"]
    dx, dy = x - cx, y - cy
    if kind == "shear":
        return x + flow["shear_rate"] * dy * dt, y
    if kind == "rotation":
        angle = flow["omega"] * dt
    else:  # Lamb-Oseen: v_theta(r) / r, scaled so that its largest v_theta is peak_speed
        s = 1.1
        for _ in range(50):
            e = math.exp(-s * s)
            s -= ((1 + 2 * s * s) * e - 1) / ((4 * s - 2 * s * (1 + 2 * s * s)) * e)
        peak = -math.expm1(-s * s) / s
        rc = flow["core_radius"]
        q = (dx * dx + dy * dy) / (rc * rc)
        shape = 1.0 if q < 1e-12 else -math.expm1(-q) / q
        angle = flow["peak_speed"] / (peak * rc) * shape * dt
    return cx + math.cos(angle) * dx - math.sin(angle) * dy, cy + math.sin(angle) * dx + math.cos(angle) * dy


def chord_midpoint_truth(flow, truth):
    """region -> (x, y, dx, dy): the displacement whose chord is centred on (x, y)."""
    out = {}
    for k, (x, y, dx, dy) in truth.items():
        for _ in range(50):
            xa, ya = x - dx / 2, y - dy / 2
            xb, yb = advect(flow, xa, ya)
            dx, dy = xb - xa, yb - ya
        out[k] = (x, y, dx, dy)
    return out


def errors(truth_path, fields, flow_path=None):
    truth = read_field(truth_path)
    error_table(truth, fields, "frame A's particle at each centre (clxcorr's convention)")
    if flow_path:
        error_table(chord_midpoint_truth(read_flow(flow_path), truth), fields,
                    "the chord centred on each centre (a symmetric deformation's own convention)")


def error_table(truth, fields, title):
    print("errors (px) against %s" % title)
    xs = [t[0] for t in truth.values()]
    ys = [t[1] for t in truth.values()]
    lo_x, hi_x, lo_y, hi_y = min(xs), max(xs), min(ys), max(ys)
    print("%-28s %9s %9s %9s %9s %8s" % ("field", "rms", "max", "rms in", "max in", "windows"))
    for spec in fields:
        name, path = spec.split("=", 1)
        f = read_field(path)
        err, inner = [], []
        for k, (x, y, dx, dy) in truth.items():
            if k not in f:
                continue
            fx, fy, fdx, fdy = f[k]
            if abs(fx - x) > 0.01 or abs(fy - y) > 0.01:
                sys.exit("%s: region %d is at (%g, %g), the truth's at (%g, %g)" % (path, k, fx, fy, x, y))
            e = (fdx - dx, fdy - dy)
            err.append(e)
            # The interior: a window's width (its step, twice) from the outer centres.
            step = xs[1] - xs[0] if len(xs) > 1 else 0
            if lo_x + 2 * step <= x <= hi_x - 2 * step and lo_y + 2 * step <= y <= hi_y - 2 * step:
                inner.append(e)
        print("%-28s %9.4f %9.4f %9.4f %9.4f %8d" % (name, rms(err), largest(err), rms(inner), largest(inner),
                                                     len(err)))


def finite(errors):
    """The components of (dx, dy) errors that are numbers (nan: no vector)."""
    return [c for e in errors for c in e if not math.isnan(c)]


def rms(errors):
    """RMS per axis over both components, as numpy's nanmean of the squares."""
    c = finite(errors)
    return math.sqrt(sum(v * v for v in c) / len(c)) if c else float("nan")


def largest(errors):
    c = finite(errors)
    return max(abs(v) for v in c) if c else float("nan")


def main(argv):
    if len(argv) >= 5 and argv[1] == "openpiv":
        windows, overlap, repeat = [64, 32, 32], [32, 16, 16], 1
        rest = argv[5:]
        while rest:
            key, value, rest = rest[0], rest[1], rest[2:]
            if key == "--windows":
                windows = [int(w) for w in value.split(",")]
            elif key == "--overlap":
                overlap = [int(w) for w in value.split(",")]
            elif key == "--repeat":
                repeat = int(value)
        run_openpiv(argv[2], argv[3], argv[4], windows, overlap, repeat)
    elif len(argv) >= 4 and argv[1] == "errors":
        if argv[3] == "--flow":
            errors(argv[2], argv[5:], argv[4])
        else:
            errors(argv[2], argv[3:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
