#!/usr/bin/env python3
"""Makes the committed HR-EBSD fixtures in this directory with kikuchipy,
so that `clxcorr strain`'s frames, signs and pattern centres are proven
against the tool EBSD users trust, on files that tool wrote, not against a
simulator of clxcorr's own.

Each pattern is projected from kikuchipy's bundled nickel master pattern
(nickel_ebsd_master_pattern_small, square Lambert, both hemispheres,
20 keV) by kikuchipy's own functions: its detector gives each pixel's
direction in its sample frame (_get_direction_cosines_from_detector, with
the pattern centre of that scan point), and its projection
(_project_single_pattern_from_master_pattern) looks that direction up in
the crystal of orientation g (orix's, sample to crystal). The one thing
added is the deformation: the test crystal is the reference's deformed by
F (sample frame; a lattice direction d becomes F d), so the test pattern
along d shows what the reference shows along F^-1 d, normalised. With F a
rotation R this is kikuchipy's get_patterns of the orientation g R^-1,
which main() checks before writing anything.

Files (one per detector tilt T in -10, 0, 10):

    tilt_T.h5          kikuchipy h5ebsd (EBSD.save), uint16 patterns of
                       HEIGHT x WIDTH, a scan of ROWS x COLS points; point
                       (0, 0) is the reference (F = I), the others rotated
                       by 0.02 to 2 degrees and
                       strained by up to 2e-3; the detector in the header:
                       sample tilt 70, detector tilt T, a pattern centre per
                       point (kikuchipy's extrapolate_pc from a 25 um pixel
                       and 60 um steps: a real beam shift, several pixels
                       over the scan), and the reference orientation in the
                       crystal map
    tilt_T_truth.csv   per point: scan_row, scan_col, the pattern centre,
                       F (f11..f33, sample frame), and what `clxcorr strain`
                       must report: the deviatoric strain 3 U / tr U - I
                       (e11..e33) and R's rotation vector (w1..w3, radians)
                       of F = R U, and the test crystal's orientation,
                       whose matrix is g R^T (orix: g * Rotation.from_matrix(R^T)),
                       as Bunge angles (orix's to_euler, radians)

a scan of two grains, each against its own reference:

    grains.h5          kikuchipy h5ebsd, uint16 patterns of GRAINS_HEIGHT x
                       GRAINS_WIDTH, a scan of 3 x 4 points: columns 0-1 a
                       grain of orientation A, columns 2-3 one of B (40
                       degrees from A); each point its grain's crystal
                       deformed by F (rotations up to 1 degree, strains up to
                       1e-3), the points (1, 0) and (1, 3) undeformed: they
                       are the references, as their image quality, the best
                       of their grains in grains.ang, makes them
    grains.ang         orix's .ang of the scan: each point's orientation (its
                       grain's turned by F's rotation, as indexing would
                       find it), image quality 100 at the references and
                       50 elsewhere, confidence 0.9; the same crystal map
                       (Ni, space group 225) is grains.h5's
    grains_truth.csv   as tilt_T_truth.csv, F relative to the point's grain
                       reference, and the grain (1: A, 2: B)

a bent lattice, whose curvature is known everywhere:

    bent.h5            kikuchipy h5ebsd, patterns of 240 x 320, a scan of 3 x
                       5 points 60 um apart, the crystal at sample position
                       (x, y) turned by R(theta), theta = K (x, y) a linear
                       field of 2e-5 to 7e-5 rad/um (up to 1.4 degrees over
                       the scan); the map's rows run along -x, its columns
                       along -y (kikuchipy's frames)
    bent_truth.csv     per point: the five components of Nye's tensor a map
                       fixes, alpha = kappa^T - tr(kappa) I, from the exact
                       curvature of R(theta(x)) at the point (rotations
                       R(theta(x + h e_j)) R(theta(x))^T over h = 1e-3 um)

and two small files for the header's edge cases:

    placeholders.h5    kikuchipy h5ebsd of 2 x 2 patterns of 60 x 80 (the
                       reference's orientation slightly rotated), saved with
                       kikuchipy's defaults: one pattern centre, a detector
                       pixel of 1 um and steps of 1 um, which kikuchipy
                       writes when it knows none
    utf8_header.h5     the same with its root's manufacturer and version
                       rewritten by h5py as Python strings: variable-length
                       UTF-8, as h5py writes every str

Run with kikuchipy and orix installed (pip; never a dependency of clxcorr):

    python3 tests/data/hrebsd/make_fixtures.py
"""
import csv
import os
import sys

import h5py
import numpy as np

import kikuchipy as kp
from kikuchipy.signals.util._master_pattern import (
    _get_direction_cosines_from_detector,
    _project_single_pattern_from_master_pattern,
)
from orix.crystal_map import CrystalMap, PhaseList
from orix.quaternion import Rotation

# F = R U and R's rotation vector, as the benchmarks compute them.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "bench"))
from strain_error import polar, rotation_vector  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROWS, COLS = 2, 3
HEIGHT, WIDTH = 360, 480
SAMPLE_TILT = 70.0
PC = (0.52, 0.36, 0.62)            # the scan centre's, Bruker's convention
PIXEL_UM, STEP_UM = 25.0, 60.0     # beam shift of ~2.4 px per step
REFERENCE_EULER_DEG = (32.0, 41.0, 17.0)
SEED = 20261128


def master_pattern():
    mp = kp.data.nickel_ebsd_master_pattern_small(projection="lambert", hemisphere="both")
    upper, lower = mp._get_master_pattern_arrays_from_energy(20)
    npx, npy = mp.axes_manager.signal_shape
    return mp, dict(master_upper=upper.astype(np.float64), master_lower=lower.astype(np.float64),
                    npx=int(npx), npy=int(npy), scale=float((npx - 1) / 2))


def project(mp_arrays, quaternion, directions):
    """kikuchipy's projection of one pattern (float64, not rescaled)."""
    return _project_single_pattern_from_master_pattern(
        rotation=quaternion, direction_cosines=directions, rescale=False, out_min=1, out_max=2,
        dtype_out=np.float64, **mp_arrays)


def deformations(rng, n):
    """F = R U for n points: the first the identity, the others a rotation
    of 0.02 to 2 degrees about a random axis and a random symmetric strain
    with components up to 2e-3."""
    out = [np.eye(3)]
    angles = np.deg2rad(np.geomspace(0.02, 2.0, n - 1))
    rng.shuffle(angles)
    for angle in angles:
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        # The rotation by angle about axis (orix's to_matrix of it).
        r = Rotation.from_axes_angles(axis, angle).to_matrix().squeeze()
        e = rng.uniform(-2e-3, 2e-3, size=(3, 3))
        e = 0.5 * (e + e.T)
        out.append(r @ (np.eye(3) + e))
    return out


def save_scan(patterns, det, rows, cols, height, width, name, xmap=None):
    """patterns (float, one a row) rescaled together to uint16 and saved by
    kikuchipy as NAME.h5, with the detector (and crystal map) in its header."""
    lo, hi = patterns.min(), patterns.max()
    data = np.round((patterns - lo) / (hi - lo) * 60000 + 2000).astype(np.uint16)
    s = kp.signals.EBSD(data.reshape(rows, cols, height, width))
    s.detector = det
    for axis in s.axes_manager.navigation_axes:
        axis.scale = STEP_UM
    if xmap is not None:
        s.xmap = xmap
    path = os.path.join(HERE, name + ".h5")
    if os.path.exists(path):
        os.remove(path)
    s.save(path)


def detector(tilt, pcs=None):
    d = kp.detectors.EBSDDetector(shape=(HEIGHT, WIDTH), pc=PC, sample_tilt=SAMPLE_TILT, tilt=tilt,
                                  px_size=PIXEL_UM, binning=1)
    if pcs is None:
        # kikuchipy's own beam-shift model around the scan's centre.
        centre = np.array([ROWS // 2, COLS // 2])
        d = d.extrapolate_pc(pc_indices=centre, navigation_shape=(ROWS, COLS), step_sizes=(STEP_UM, STEP_UM))
    return d


def check_against_get_patterns(mp, arrays, tilt, g):
    """With F a rotation R, the projection above is kikuchipy's
    get_patterns of the orientation whose matrix is g R^-1 (orix: g * ~r):
    the deformation's frame and sense are kikuchipy's."""
    d = kp.detectors.EBSDDetector(shape=(HEIGHT, WIDTH), pc=PC, sample_tilt=SAMPLE_TILT, tilt=tilt)
    axis = np.array([0.3, -0.5, 0.81])
    r = Rotation.from_axes_angles(axis / np.linalg.norm(axis), np.deg2rad(1.5))
    dc = _get_direction_cosines_from_detector(d)
    dc_test = dc @ np.linalg.inv(r.to_matrix().squeeze()).T
    dc_test /= np.linalg.norm(dc_test, axis=1, keepdims=True)
    mine = project(arrays, g.data.squeeze(), dc_test)
    theirs = mp.get_patterns(g * ~r, d, energy=20, dtype_out=np.float32, compute=True).data.ravel()
    # get_patterns rescales to its output type's range: compare both scaled to [0, 1].
    mine, theirs = ((p - p.min()) / np.ptp(p) for p in (mine, theirs.astype(np.float64)))
    err = np.max(np.abs(mine - theirs))
    if err > 1e-6:
        sys.exit("the projection does not match kikuchipy's get_patterns (%.2e): frames differ" % err)


def write_scan(mp, arrays, tilt, fs, g):
    det = detector(tilt)
    pcs = det.pc.reshape(ROWS * COLS, 3)
    dc_all = _get_direction_cosines_from_detector(det).reshape(ROWS * COLS, -1, 3)
    patterns = np.empty((ROWS * COLS, HEIGHT * WIDTH))
    for i, f in enumerate(fs):
        dc = dc_all[i] @ np.linalg.inv(f).T
        dc /= np.linalg.norm(dc, axis=1, keepdims=True)
        patterns[i] = project(arrays, g.data.squeeze(), dc)
    name = "tilt_%d" % tilt
    save_scan(patterns, det, ROWS, COLS, HEIGHT, WIDTH, name,
              CrystalMap(rotations=Rotation(np.tile(g.data, (ROWS * COLS, 1))),
                         phase_list=PhaseList(names="ni", space_groups=225),
                         x=np.tile(np.arange(COLS), ROWS) * STEP_UM, y=np.repeat(np.arange(ROWS), COLS) * STEP_UM))

    with open(os.path.join(HERE, name + "_truth.csv"), "w", newline="") as out:
        w = csv.writer(out, lineterminator="\n")
        w.writerow(["scan_row", "scan_col", "pcx", "pcy", "pcz"] + ["f%d%d" % (i, j) for i in (1, 2, 3) for j in (1, 2, 3)]
                   + ["e11", "e12", "e13", "e22", "e23", "e33", "w1", "w2", "w3", "phi1", "Phi", "phi2"])
        for i, f in enumerate(fs):
            r, u = polar(f)
            e = 3 * u / np.trace(u) - np.eye(3)
            wv = rotation_vector(r)
            # The test crystal's orientation: a sample direction d meets the
            # reference lattice along R^T d (the strain aside), then g.
            refined = g * Rotation.from_matrix(r.T)
            euler = refined.to_euler().squeeze()
            w.writerow([i // COLS, i % COLS] + ["%.9f" % v for v in pcs[i]] + ["%.12e" % v for v in f.ravel()]
                       + ["%.6e" % v for v in (e[0, 0], e[0, 1], e[0, 2], e[1, 1], e[1, 2], e[2, 2])]
                       + ["%.6e" % v for v in wv] + ["%.9f" % v for v in euler])


def write_header_cases(mp, g):
    """placeholders.h5 and utf8_header.h5: kikuchipy's defaults in the header."""
    det = kp.detectors.EBSDDetector(shape=(60, 80), pc=PC, sample_tilt=SAMPLE_TILT)
    small = Rotation.from_axes_angles([0, 0, 1], np.deg2rad([0, 0.1, 0.2, 0.3]))
    s = mp.get_patterns(g * small.reshape(2, 2), det, energy=20, dtype_out=np.uint16, compute=True)
    path = os.path.join(HERE, "placeholders.h5")
    utf8 = os.path.join(HERE, "utf8_header.h5")
    for p in (path, utf8):
        if os.path.exists(p):
            os.remove(p)
    s.save(path)
    s.save(utf8)
    with h5py.File(utf8, "r+") as f:
        for key in ("manufacturer", "version"):
            value = f[key][()][0].decode()
            del f[key]
            f[key] = value
        assert h5py.check_string_dtype(f["manufacturer"].dtype).encoding == "utf-8"


GRAINS_HEIGHT, GRAINS_WIDTH = 300, 400
GRAIN_EULER_DEG = ((32.0, 41.0, 17.0), (75.0, 20.0, 310.0))


def write_grains(mp, arrays, rng):
    """grains.h5, grains.ang and grains_truth.csv: two grains, their references undeformed."""
    from orix import io as orix_io
    from orix.crystal_map import Phase
    rows, cols = 3, 4
    det = kp.detectors.EBSDDetector(shape=(GRAINS_HEIGHT, GRAINS_WIDTH), pc=PC, sample_tilt=SAMPLE_TILT, tilt=0,
                                    px_size=PIXEL_UM, binning=1)
    det = det.extrapolate_pc(pc_indices=np.array([rows // 2, cols // 2]), navigation_shape=(rows, cols),
                             step_sizes=(STEP_UM, STEP_UM))
    dc_all = _get_direction_cosines_from_detector(det).reshape(rows * cols, -1, 3)
    g = [Rotation.from_euler(np.deg2rad(e)) for e in GRAIN_EULER_DEG]
    references = {(1, 0), (1, 3)}
    patterns = np.empty((rows * cols, GRAINS_HEIGHT * GRAINS_WIDTH))
    truth, orientations, quality = [], [], []
    for i in range(rows * cols):
        r, c = divmod(i, cols)
        grain = 0 if c < 2 else 1
        if (r, c) in references:
            f = np.eye(3)
        else:
            axis = rng.normal(size=3)
            axis /= np.linalg.norm(axis)
            rot = Rotation.from_axes_angles(axis, np.deg2rad(rng.uniform(0.05, 1.0))).to_matrix().squeeze()
            e = rng.uniform(-1e-3, 1e-3, size=(3, 3))
            f = rot @ (np.eye(3) + 0.5 * (e + e.T))
        dc = dc_all[i] @ np.linalg.inv(f).T
        dc /= np.linalg.norm(dc, axis=1, keepdims=True)
        patterns[i] = project(arrays, g[grain].data.squeeze(), dc)
        rot, u = polar(f)
        orientations.append((g[grain] * Rotation.from_matrix(rot.T)).data.squeeze())
        quality.append(100.0 if (r, c) in references else 50.0)
        truth.append((r, c, grain + 1, det.pc[r, c], f, rot, u))
    xmap = CrystalMap(rotations=Rotation(np.array(orientations)),
                      phase_id=np.zeros(rows * cols, dtype=int),
                      x=np.tile(np.arange(cols), rows) * STEP_UM, y=np.repeat(np.arange(rows), cols) * STEP_UM,
                      phase_list=PhaseList(Phase(name="ni", space_group=225)),
                      prop={"iq": np.array(quality), "ci": np.full(rows * cols, 0.9)})
    orix_io.save(os.path.join(HERE, "grains.ang"), xmap, overwrite=True)
    save_scan(patterns, det, rows, cols, GRAINS_HEIGHT, GRAINS_WIDTH, "grains", xmap)

    with open(os.path.join(HERE, "grains_truth.csv"), "w", newline="") as out:
        w = csv.writer(out, lineterminator="\n")
        w.writerow(["scan_row", "scan_col", "grain", "pcx", "pcy", "pcz"]
                   + ["f%d%d" % (i, j) for i in (1, 2, 3) for j in (1, 2, 3)]
                   + ["e11", "e12", "e13", "e22", "e23", "e33", "w1", "w2", "w3", "phi1", "Phi", "phi2"])
        for (r, c, grain, pc, f, rot, u), o in zip(truth, orientations):
            e = 3 * u / np.trace(u) - np.eye(3)
            euler = Rotation(o).to_euler().squeeze()
            w.writerow([r, c, grain] + ["%.9f" % v for v in pc] + ["%.12e" % v for v in f.ravel()]
                       + ["%.6e" % v for v in (e[0, 0], e[0, 1], e[0, 2], e[1, 1], e[1, 2], e[2, 2])]
                       + ["%.6e" % v for v in rotation_vector(rot)] + ["%.9f" % v for v in euler])


BENT_HEIGHT, BENT_WIDTH = 240, 320
# d theta_i / d x_j (rad/um), rows i = 1..3, columns j = x, y.
BENT_K = np.array([[2e-5, 6e-5], [-4e-5, 3e-5], [5e-5, -7e-5]])


def rotation_matrix(theta):
    angle = np.linalg.norm(theta)
    if angle == 0:
        return np.eye(3)
    return Rotation.from_axes_angles(theta / angle, angle).to_matrix().squeeze()


def write_bent(mp, arrays, g):
    """bent.h5 and bent_truth.csv: a lattice of constant curvature."""
    rows, cols = 3, 5
    det = kp.detectors.EBSDDetector(shape=(BENT_HEIGHT, BENT_WIDTH), pc=PC, sample_tilt=SAMPLE_TILT, tilt=0,
                                    px_size=PIXEL_UM, binning=1)
    det = det.extrapolate_pc(pc_indices=np.array([rows // 2, cols // 2]), navigation_shape=(rows, cols),
                             step_sizes=(STEP_UM, STEP_UM))
    dc_all = _get_direction_cosines_from_detector(det).reshape(rows * cols, -1, 3)
    patterns = np.empty((rows * cols, BENT_HEIGHT * BENT_WIDTH))

    def theta_at(x, y):
        return BENT_K @ np.array([x, y])

    truth = []
    for i in range(rows * cols):
        r, c = divmod(i, cols)
        x, y = -r * STEP_UM, -c * STEP_UM    # rows along -x_s, columns along -y_s
        f = rotation_matrix(theta_at(x, y))
        dc = dc_all[i] @ np.linalg.inv(f).T
        dc /= np.linalg.norm(dc, axis=1, keepdims=True)
        patterns[i] = project(arrays, g.data.squeeze(), dc)
        kappa = np.zeros((3, 2))
        h = 1e-3
        for j, (dx, dy) in enumerate(((h, 0), (0, h))):
            turn = rotation_matrix(theta_at(x + dx, y + dy)) @ f.T
            kappa[:, j] = rotation_vector(turn) / h
        alpha = (kappa[1, 0], kappa[2, 0], kappa[0, 1], kappa[2, 1], -(kappa[0, 0] + kappa[1, 1]))
        truth.append((r, c) + alpha)
    save_scan(patterns, det, rows, cols, BENT_HEIGHT, BENT_WIDTH, "bent")
    with open(os.path.join(HERE, "bent_truth.csv"), "w", newline="") as out:
        w = csv.writer(out, lineterminator="\n")
        w.writerow(["scan_row", "scan_col", "alpha12", "alpha13", "alpha21", "alpha23", "alpha33"])
        for row in truth:
            w.writerow(list(row[:2]) + ["%.9e" % v for v in row[2:]])


def main():
    rng = np.random.default_rng(SEED)
    mp, arrays = master_pattern()
    g = Rotation.from_euler(np.deg2rad(REFERENCE_EULER_DEG))
    for tilt in (-10, 0, 10):
        check_against_get_patterns(mp, arrays, tilt, g)
        write_scan(mp, arrays, tilt, deformations(rng, ROWS * COLS), g)
    write_header_cases(mp, g)
    write_grains(mp, arrays, rng)
    write_bent(mp, arrays, g)


if __name__ == "__main__":
    main()
