#!/usr/bin/env python3
"""bench/strain_error.py TRUTH.csv STRAIN.csv: how far `clxcorr strain`'s
rows are from the truth of `clxcorr-samples --kikuchi`.

The truth's beta_s (b11..b33) gives F = I + beta_s = R U; the strain is
compared as the fit reports it: deviatoric, 3 U / tr U - I (or, with
--full, U - I scaled so that its trace matches the row's), and the rotation
as R's rotation vector. Prints one line: the RMS over the six strain
components and the patterns, the largest, the rotation vector's RMS error
per component, and the patterns counted (rows flagged 1 or 2 have no
numbers and are counted as failures). Needs numpy."""
import csv
import sys

import numpy as np


def polar(f):
    r = f.copy()
    for _ in range(60):
        r = 0.5 * (r + np.linalg.inv(r).T)
    return r, r.T @ f


def rotation_vector(r):
    a = 0.5 * np.array([r[2, 1] - r[1, 2], r[0, 2] - r[2, 0], r[1, 0] - r[0, 1]])
    s = np.linalg.norm(a)
    angle = np.arctan2(s, 0.5 * (np.trace(r) - 1))
    return a * (angle / s) if s > 0 else a


def main():
    truth = {row["image"]: row for row in csv.DictReader(open(sys.argv[1]))}
    strain_errors, rotation_errors, failed = [], [], 0
    for row in csv.DictReader(open(sys.argv[2])):
        t = truth[row["image"].rsplit("/", 1)[-1]]
        b = np.array([[float(t["b%d%d" % (i, j)]) for j in (1, 2, 3)] for i in (1, 2, 3)])
        r, u = polar(np.eye(3) + b)
        if int(row["flags"]) & 3:
            failed += 1
            continue
        e = np.array([[float(row["e%d%d" % (min(i, j), max(i, j))]) for j in (1, 2, 3)] for i in (1, 2, 3)])
        expected = 3 * u / np.trace(u) - np.eye(3)
        strain_errors.extend((e - expected)[np.triu_indices(3)])
        w = np.array([float(row["w%d" % k]) for k in (1, 2, 3)])
        rotation_errors.extend(w - rotation_vector(r))
    se, re = np.array(strain_errors), np.array(rotation_errors)
    print("strain rms %.2e max %.2e, rotation rms %.2e rad, patterns %d, failed %d"
          % (np.sqrt(np.mean(se ** 2)), np.max(np.abs(se)), np.sqrt(np.mean(re ** 2)), len(se) // 6, failed))


if __name__ == "__main__":
    main()
