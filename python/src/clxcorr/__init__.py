"""clxcorr: how windows of images move relative to a reference, on any OpenCL device.

A thin binding of libclxcorr (the library of the ``clxcorr`` command): numpy
arrays in, numpy structured arrays out, with the command's columns.

    >>> import clxcorr
    >>> ctx = clxcorr.Context()                        # the first GPU, else the first device
    >>> windows = clxcorr.grid(reference, count=(5, 5), size=(128, 128), margin=64)
    >>> r = ctx.offsets(reference, patterns, windows)  # patterns: (..., rows, columns)
    >>> r["dx"], r["dy"]                               # px: image minus reference

Sign convention: (dx, dy) is the position of a feature in the image minus its
position in the reference, in pixels, x to the right (columns) and y down
(rows). See :meth:`Context.offsets` for every column and option.
"""

try:
    import numpy as _numpy  # noqa: F401 (every module of the package needs it)
except ImportError as e:
    import sys as _sys
    raise ImportError(f"clxcorr needs numpy, which {_sys.executable} cannot import ({e}): `pip install numpy` "
                      "(pip install ./python brings it, unless told --no-deps)") from None

from . import _core
from ._context import Context, OffsetStream
from ._devices import Device, devices
from ._errors import (ArgumentError, BuildError, CancelledError, DeviceMemoryError, Error, FFTError, FileError,
                      FormatError, HostMemoryError, NoDeviceError, OpenCLError, RegionError, SizeError, StateError,
                      UnsupportedError)
from ._gnd import gnd
from ._images import imread, scan_info
from ._windows import grid, read_windows

__version__ = "0.1.0"


def strain(reference, patterns, windows, *, context=None, **options):
    """HR-EBSD as ``clxcorr strain``: :meth:`Context.strain` on ``context``
    (None: a Context on the default device, opened for this call)."""
    if context is not None:
        return context.strain(reference, patterns, windows, **options)
    with Context() as ctx:
        return ctx.strain(reference, patterns, windows, **options)

#: The library's version and build features ("clfft vkfft hdf5").
library_version = _core.version()
library_features = _core.build_features()

#: The ``flags`` column's bits (0: the estimate is trusted).
FLAGS = {
    "fit_failed": 1,    # the peak fit has no maximum near the integer peak (sub-pixel part 0)
    "edge": 2,          # the integer peak lies on the border of the searched shifts
    "no_peak": 4,       # the correlation maximum is not positive
    "outlier": 8,       # the normalised median test rejects it against its grid neighbours
    "clamped": 16,      # the moved window had to be kept inside the image
    "unconverged": 32,  # the refinement stopped before its correction fell below tol
}

__all__ = [
    "Context", "OffsetStream", "strain", "gnd", "Device", "devices", "grid", "read_windows", "imread", "scan_info", "FLAGS",
    "Error", "ArgumentError", "HostMemoryError", "FileError", "FormatError", "NoDeviceError", "UnsupportedError",
    "OpenCLError", "DeviceMemoryError", "BuildError", "FFTError", "SizeError", "RegionError", "StateError",
    "CancelledError", "library_version", "library_features",
]
