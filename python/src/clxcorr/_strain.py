"""HR-EBSD: ``clxcorr strain`` as a function, on libclxcorr's strain job.

The job (clx_strain_job in clxcorr.h) is the command's own: the same
geometry from the same keywords and file headers, the same correlations
(the accurate mode with a Tukey window of taper 0.5 unless told otherwise),
fits, remapping passes and references per grain. Its rows are laid on the
scan here.
"""

import math
import os

import numpy as np

from . import _core, _kikuchipy, _progress
from ._errors import ArgumentError
from ._images import _is_name, _supported, as_image
from ._options import plan_fields
from ._windows import as_regions

# Each row's values as the extension hands them over (python/ext/strain.c).
_RAW = ("e11", "e12", "e13", "e22", "e23", "e33", "w1", "w2", "w3", "residual", "windows", "flags", "grain",
        "ref_row", "ref_col", "phi1", "Phi", "phi2", "image")
_INTEGER = ("windows", "flags", "grain", "ref_row", "ref_col", "image")
_CENTRES = ("auto", "file", "beam-shift", "fixed")
_SYMMETRIES = ("cubic", "hexagonal")

# Keywords of the job (the command's options, with underscores) -> how to pass them on.
STRAIN_OPTIONS = ("pc", "sample_tilt", "detector_tilt", "pixel_size", "step", "pattern_centres", "scan_cols",
                  "ref_point", "euler", "orientations", "stiffness", "min_zncc", "min_peak_ratio", "max_residual",
                  "remap", "remap_rotation", "remap_tol", "remap_passes", "grains", "grain_angle", "min_grain",
                  "symmetry", "grain_references")


def _job_fields(options):
    """The clx_strain_job_options fields of strain()'s keywords (popped from options)."""
    job = {}
    for key in STRAIN_OPTIONS:
        if key not in options:
            continue
        value = options.pop(key)
        if value is None or value is False:
            continue
        if key in ("pc", "euler", "ref_point", "step"):
            value = tuple(value)
            if len(value) != (2 if key in ("ref_point", "step") else 3):
                raise ArgumentError(f"{key}: expected {2 if key in ('ref_point', 'step') else 3} numbers, "
                                    f"got {value!r}", "CLX_ERR_ARGUMENT")
        if key == "euler":          # degrees, as the command takes them
            value = tuple(math.radians(float(v)) for v in value)
        if key == "step":
            job["step_x"], job["step_y"] = (float(v) for v in value)
        elif key == "pattern_centres":
            if value not in _CENTRES:
                raise ArgumentError(f"pattern_centres: expected one of {', '.join(_CENTRES)}, got {value!r}",
                                    "CLX_ERR_ARGUMENT")
            job[key] = _CENTRES.index(value)
        elif key == "symmetry":
            if value not in _SYMMETRIES:
                raise ArgumentError(f"symmetry: expected cubic or hexagonal, got {value!r}", "CLX_ERR_ARGUMENT")
            job[key] = _SYMMETRIES.index(value)
        elif key in ("orientations", "grains", "grain_references"):
            job[key] = os.fsdecode(value)
        elif key in ("remap", "remap_rotation"):
            job[key] = 1
            if key == "remap_rotation":
                job["remap"] = 1
        elif key in ("scan_cols", "remap_passes", "min_grain"):
            job[key] = int(value)
        elif key in ("pc", "ref_point"):
            job[key] = tuple(int(v) for v in value) if key == "ref_point" else tuple(float(v) for v in value)
        elif key in ("euler", "stiffness"):
            job[key] = value
        else:
            job[key] = float(value)
    return job


def strain(context, reference, patterns, windows, **options):
    """Context.strain (the documentation is there)."""
    options = dict(options)
    scan = options.pop("scan", None)
    progress = options.pop("progress", None)
    symmetry = _kikuchipy.symmetry_of(options.get("symmetry"))
    signal = None
    if _kikuchipy.is_signal(patterns):
        signal = _kikuchipy.SignalPatterns(patterns)
        index = signal.index(reference)
        for key, value in signal.options(index).items():
            options.setdefault(key, value)      # what is given wins
        symmetry = symmetry or signal.symmetry()
        patterns = signal.source()
        if index is not None:
            reference = index
        shape = signal.nav_shape
    job = _job_fields(options)
    plan = plan_fields(options, "strain")
    regions = as_regions(windows)
    file = None
    lazy = None
    if _is_name(patterns):
        file = os.fspath(patterns)
        pixels, count, pixel_type = None, 0, 0
        shape = None
        if reference is None:
            if "grains" not in job:
                raise ArgumentError("reference: give the reference pattern (a scan's reference is its own only "
                                    "with grains)", "CLX_ERR_ARGUMENT")
            reference = f"{os.fsdecode(file)}#0"
    else:
        if isinstance(patterns, _kikuchipy.LazyPatterns) or _kikuchipy.is_lazy(patterns):
            lazy = patterns = (patterns if isinstance(patterns, _kikuchipy.LazyPatterns)
                               else _kikuchipy.LazyPatterns(patterns))
            if signal is None:
                shape = lazy.shape[:-2]
            pixels, pixel_type, count = lazy, lazy.pixel_type, lazy.count
            if isinstance(reference, (int, np.integer)):
                reference = lazy.pattern(int(reference)).copy()
        else:
            array = np.asarray(patterns)
            if array.ndim < 3:
                raise ArgumentError(f"patterns: expected (n, rows, columns) or (scan rows, scan columns, rows, "
                                    f"columns), got shape {array.shape}", "CLX_ERR_ARGUMENT")
            if signal is None:
                shape = array.shape[:-2]
            array = array.reshape((-1,) + array.shape[-2:])
            pixels, pixel_type = _supported(array, "patterns", 0)
            count = len(pixels)
            if isinstance(reference, (int, np.integer)):
                reference = pixels[int(reference)]
        if reference is None:
            raise ArgumentError("reference: give the reference pattern (an array, or an index into patterns)",
                                "CLX_ERR_ARGUMENT")
    try:
        name = os.fsdecode(reference) if _is_name(reference) else None
        ref, ref_type = as_image(reference, "reference", scan)
        height, width = ref.shape
        size = (lazy.height, lazy.width) if lazy is not None else pixels.shape[1:] if pixels is not None else None
        if size is not None and size != ref.shape:
            raise ArgumentError(f"patterns of {size[1]}x{size[0]} but the reference is "
                                f"{width}x{height}", "CLX_ERR_SIZE")

        def call(state):
            return _core.strain(context._core, pixels, count, width, height, pixel_type, ref, ref_type, name, file,
                                scan, regions, plan, job, state)

        total = count if file is None else None
        outcome, interrupt = _progress.run(call, total, progress)
    finally:
        if lazy is not None:
            lazy.close()
    rows, grains, oriented, scan_rows, scan_cols, step_x, step_y, cancelled, delivered = outcome
    raw = np.frombuffer(rows, dtype=np.float64).reshape(-1, len(_RAW))
    if cancelled or interrupt is not None:
        raw = raw[:delivered]
    out = _laid_out(raw, grains, oriented, shape, scan_rows, scan_cols, job.get("scan_cols", 0), symmetry,
                    len(rows) // (8 * len(_RAW)), (step_x, step_y))
    if interrupt is not None:
        interrupt.results = out     # the rows delivered before it stopped
        raise interrupt
    return out


def _laid_out(raw, grains, oriented, shape, scan_rows, scan_cols, cols_given, symmetry=None, n=None, steps=(0, 0)):
    """The rows as columns laid on the scan: (scan rows, scan columns) for a
    pattern file's scan, a 4-D array's (or a signal's) first two axes or
    scan_cols; else one per pattern. Points without a pattern (or not
    measured: a run stopped early) hold nan (-1 for the integers). A
    pattern file's scan whose header gives its steps (um) adds scan_x and
    scan_y, each point's position, as the command's columns. With
    orientations and orix installed, "orientation": an orix Orientation of
    phi1, Phi, phi2 on the same layout (symmetry: its point group)."""
    n = len(raw) if n is None else n
    if scan_rows > 0:
        grid = (scan_rows, scan_cols)
    elif shape is not None and len(shape) == 2:
        grid = tuple(shape)
    elif cols_given:
        grid = (-(-n // cols_given), cols_given)
    else:
        grid = (n,)
    names = [c for c in _RAW if (grains or c not in ("grain", "ref_row", "ref_col"))
             and (oriented or c not in ("phi1", "Phi", "phi2"))]
    index = raw[:, _RAW.index("image")].astype(np.int64)
    out = {}
    for c in names:
        integer = c in _INTEGER
        column = np.full(int(np.prod(grid)), -1 if integer else np.nan, dtype=np.int64 if integer else np.float64)
        column[index] = raw[:, _RAW.index(c)]
        out[c] = column.reshape(grid)
    if len(grid) == 2:
        out["scan_row"], out["scan_col"] = (a.astype(np.int64) for a in np.indices(grid))
        if scan_rows > 0 and steps[0] > 0 and steps[1] > 0:
            out["scan_x"], out["scan_y"] = out["scan_col"] * float(steps[0]), out["scan_row"] * float(steps[1])
    if oriented:
        orientation = _kikuchipy.orientations(out["phi1"], out["Phi"], out["phi2"], symmetry)
        if orientation is not None:
            out["orientation"] = orientation
    return out
