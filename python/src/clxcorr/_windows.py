"""Window lists: (N, 4) int32 arrays of (x, y, w, h) rows.

(x, y) is a window's top-left pixel (x the column, y the row, from 0) and
(w, h) its width and height in pixels, as in the command's windows files.
"""

import os

import numpy as np

from . import _core
from ._errors import RegionError


def _from_bytes(data):
    return np.frombuffer(data, dtype=np.int32).reshape(-1, 4).copy()


def grid(shape, count, size, margin=0):
    """Windows on a regular grid, as ``clxcorr offsets --grid --window --margin``.

    Args:
        shape: the images' shape (rows, columns), numpy's order, or an image
            whose last two axes are that.
        count: (nx, ny): windows across and down.
        size: (w, h): a window's width and height in pixels.
        margin: pixels kept free on every side of the image.

    Returns:
        An (nx * ny, 4) int32 array of (x, y, w, h), row by row (x fastest),
        spread evenly over the image inside the margin.

    Raises:
        RegionError: the windows do not fit (the library's message says by
            how much).
    """
    shape = np.shape(shape) if hasattr(shape, "shape") else tuple(shape)
    if len(shape) < 2:
        raise RegionError(f"grid: shape {shape} is not (rows, columns)", "CLX_ERR_REGION")
    height, width = int(shape[-2]), int(shape[-1])
    nx, ny = (int(v) for v in count)
    w, h = (int(v) for v in size)
    return _from_bytes(_core.regions_grid(nx, ny, w, h, int(margin), width, height))


def read_windows(path):
    """A windows file: one "x y w h" per line, '#' comments, blank lines ignored.

    Returns an (N, 4) int32 array. Raises FileError or FormatError (naming
    the line) as the command does.
    """
    return _from_bytes(_core.regions_read(os.fspath(path)))


def as_regions(windows):
    """An (N, 4) array-like of whole numbers as a C-contiguous int32 array
    (no copy when it is one already). RegionError when it is not."""
    if isinstance(windows, (str, os.PathLike)):
        raise RegionError("windows: give an (N, 4) array (read a windows file with clxcorr.read_windows)",
                          "CLX_ERR_REGION")
    array = np.asarray(windows)
    if array.ndim != 2 or array.shape[1] != 4:
        raise RegionError(f"windows: expected an (N, 4) array of (x, y, w, h), got shape {array.shape}",
                          "CLX_ERR_REGION")
    if array.dtype.kind not in "iuf" and array.size:
        raise RegionError(f"windows: expected whole numbers, got dtype {array.dtype}", "CLX_ERR_REGION")
    if array.dtype.kind == "f" and not np.array_equal(array, np.round(array)):
        raise RegionError("windows: (x, y, w, h) must be whole numbers of pixels", "CLX_ERR_REGION")
    if array.size and (array.min() < np.iinfo(np.int32).min or array.max() > np.iinfo(np.int32).max):
        raise RegionError("windows: a value does not fit a 32-bit int", "CLX_ERR_REGION")
    return np.ascontiguousarray(array, dtype=np.int32)
