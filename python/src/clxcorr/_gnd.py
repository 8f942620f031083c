"""Geometrically necessary dislocations: ``clxcorr gnd`` as a function, on
libclxcorr's clx_gnd_map (the command's own computation)."""

import math
from collections.abc import Mapping

import numpy as np

from . import _core
from ._errors import ArgumentError

_LATTICES = {"fcc": _core.LATTICE_FCC, "bcc": _core.LATTICE_BCC}
#: The columns gnd returns, as the command's.
COMPONENTS = ("alpha12", "alpha13", "alpha21", "alpha23", "alpha33")


def _fail(message):
    raise ArgumentError(message, "CLX_ERR_ARGUMENT")


def _grain(values):
    """Grain numbers as int32: a float map's nan (no grain given) is grain 1,
    as the command reads a row's nan."""
    values = np.asarray(values)
    if values.dtype.kind == "f":
        values = np.where(np.isfinite(values), values, 1)
    elif values.dtype.kind not in "iub":
        _fail(f"grain: expected grain numbers, got an array of {values.dtype}")
    values = np.clip(values, np.iinfo(np.int32).min, np.iinfo(np.int32).max)
    return np.ascontiguousarray(values, dtype=np.int32)


def gnd(strain, *, step=None, burgers=None, lattice="fcc"):
    """Geometrically necessary dislocations over a scan, as ``clxcorr gnd``:
    each point's lattice curvature from its neighbours' rotations within its
    grain, Nye's five components a map fixes and, with ``burgers``, a total
    density (see the command's help and clx_gnd_map in clxcorr.h).

    Args:
        strain: the dict :func:`clxcorr.strain` returns over a scan, or any
            mapping of arrays of one (scan rows, scan columns) shape: w1, w2,
            w3 (rad; nan where a point has none), and optionally grain (a
            point's gradients come only from its grain's points; 0 or less:
            in none), phi1, Phi, phi2 (Bunge, rad: the density needs them),
            scan_x, scan_y (um: the steps, when ``step`` is not given). The
            map's rows run along -x of the sample, its columns along -y.
        step: (x, y), the scan's steps in um: x from one column to the next,
            y from one row to the next (default: from scan_x and scan_y).
        burgers: the Burgers vector's length in nm (nickel: 0.249), for the
            density; None: no density.
        lattice: "fcc" ({111}<110>) or "bcc" ({110}<111>), the dislocations
            the density is made of.

    Returns:
        A dict of float64 arrays of the map's shape, the command's columns:
        alpha12, alpha13, alpha21, alpha23, alpha33 (1/um) and, with
        ``burgers``, rho_gnd (1/m^2); nan where a point has no neighbour of
        its grain along a direction (or no rotation).

    Raises:
        ArgumentError: a missing column, arrays of different or not 2-D
            shapes, no steps, a density without orientations, a bad option.
    """
    if not isinstance(strain, Mapping):
        _fail(f"strain: expected the dict clxcorr.strain returns (w1, w2, w3, ...), got {type(strain).__name__}")
    missing = [c for c in ("w1", "w2", "w3") if c not in strain]
    if missing:
        _fail(f"strain: no {', '.join(missing)}: gnd takes the rotations of clxcorr.strain over a scan")
    w = np.stack([np.asarray(strain[c], dtype=np.float64) for c in ("w1", "w2", "w3")], axis=-1) \
        if len({np.shape(strain[c]) for c in ("w1", "w2", "w3")}) == 1 else None
    if w is None or w.ndim != 3:
        _fail("strain: w1, w2, w3 must be arrays of one (scan rows, scan columns) shape, got "
              + ", ".join(str(np.shape(strain[c])) for c in ("w1", "w2", "w3"))
              + " (a scan's rows need a 2-D layout: a pattern file's scan, a 4-D array or scan_cols)")
    shape = w.shape[:2]

    def column(name):
        array = np.asarray(strain[name])
        if array.shape != shape:
            _fail(f"strain: {name} is {array.shape}, w1 is {shape}")
        return array

    if lattice not in _LATTICES:
        _fail(f"lattice: expected fcc or bcc, got {lattice!r}")
    burgers_um = 0.0
    if burgers is not None:
        burgers = float(burgers)
        if not (0 < burgers <= 10):
            _fail(f"burgers: expected a length in nm from 0 to 10 (nickel: 0.249), got {burgers!r}")
        burgers_um = burgers * 1e-3
    grain = _grain(column("grain")) if "grain" in strain else None
    euler = None
    if all(c in strain for c in ("phi1", "Phi", "phi2")):
        euler = np.ascontiguousarray(np.stack([np.asarray(column(c), dtype=np.float64)
                                               for c in ("phi1", "Phi", "phi2")], axis=-1))
    if burgers is not None and euler is None:
        _fail("burgers: the rows have no orientations (phi1, Phi, phi2), which the density needs: run strain with "
              "the reference's orientation (orientations=, euler=, or a file that has them)")
    if step is not None:
        step = tuple(step)
        if len(step) != 2 or not all(isinstance(s, (int, float, np.integer, np.floating)) and s > 0
                                     and math.isfinite(s) for s in step):
            _fail(f"step: expected (x, y), two positive steps in um, got {step!r}")
        step_x, step_y = (float(s) for s in step)
    elif "scan_x" in strain and "scan_y" in strain:
        x = np.ascontiguousarray(column("scan_x"), dtype=np.float64)
        y = np.ascontiguousarray(column("scan_y"), dtype=np.float64)
        try:
            step_x, step_y = _core.gnd_steps(shape[0], shape[1], x, y)
        except ArgumentError:
            _fail("strain: scan_x and scan_y give no scan steps: give step=(x, y) in um")
    else:
        _fail("strain: no scan_x, scan_y to take the scan's steps from: give step=(x, y) in um")
    alpha, rho = _core.gnd_map(shape[0], shape[1], np.ascontiguousarray(w), grain, euler, step_x, step_y,
                               _LATTICES[lattice], burgers_um)
    alpha = np.frombuffer(alpha, dtype=np.float64).reshape(shape + (5,))
    out = {name: alpha[..., k].copy() for k, name in enumerate(COMPONENTS)}
    if rho is not None:
        out["rho_gnd"] = np.frombuffer(rho, dtype=np.float64).reshape(shape).copy()
    return out
