"""kikuchipy and orix interop: an ``EBSD`` signal as patterns, orientations as orix's.

A signal is recognised by its type's module (kikuchipy.signals...), so that
kikuchipy is never imported here. Its patterns are its data: a numpy array
as it is, or a dask array (a lazy signal) read band by band of its first
navigation axis (a row of chunks, at most BAND_BYTES), one band ahead in a
thread, a few bands kept: memory stays bounded for a scan of any size. Its
detector (kikuchipy's EBSDDetector) and axes give the geometry the command
reads from the same signal's h5ebsd file (src/image/h5ebsd_headers.c):

    pc             detector.pc: kikuchipy's convention is Bruker's, the
                   library's; one per point: the reference point's
    sample_tilt    detector.sample_tilt (degrees)
    detector_tilt  detector.tilt (degrees)
    pixel_size     detector.px_size x detector.binning (um); kikuchipy's
                   placeholder px_size of 1 um is no size (as the command)
    step           the navigation axes' scales (x, y) (um)
    scan_cols      the navigation shape (rows, cols): results on the scan
    ref_point      the reference's (row, col) when given as an index
    euler          the crystal map's orientation at the reference point,
                   when the map holds orientations (a phase with a space
                   group, or rotations that are not all the identity)
"""

import bisect
import collections
import concurrent.futures
import math
import threading

import numpy as np

from ._errors import ArgumentError
from ._images import _supported

#: A lazy signal's patterns are read in bands of at most this many bytes.
BAND_BYTES = 64 << 20
#: Bands kept (the one being read, the next, and the last used).
BANDS_KEPT = 4


def is_signal(obj):
    """Whether obj is a kikuchipy EBSD signal (by duck type; kikuchipy not imported)."""
    module = type(obj).__module__ or ""
    return module.startswith("kikuchipy") and all(hasattr(obj, a) for a in ("data", "detector", "axes_manager"))


def is_lazy(array):
    """Whether array is a dask (or dask-like) array: chunks, compute, no buffer."""
    return not isinstance(array, np.ndarray) and hasattr(array, "chunks") and hasattr(array, "compute")


class LazyPatterns:
    """A lazy (n..., rows, columns) array read band by band: calling it with
    i gives pattern i (C order over the leading axes) as a C-contiguous
    array of a pixel type the library takes. Called from the library's
    loader threads (with the GIL), mostly in order."""

    def __init__(self, data):
        if data.ndim < 3:
            raise ArgumentError(f"patterns: expected (n, rows, columns) or (scan rows, scan columns, rows, "
                                f"columns), got shape {data.shape}", "CLX_ERR_ARGUMENT")
        self.data = data
        self.shape = tuple(int(v) for v in data.shape)
        self.per_index = int(np.prod(self.shape[1:-2], dtype=np.int64))   # patterns per index of axis 0
        self.count = self.shape[0] * self.per_index
        pattern_bytes = self.shape[-1] * self.shape[-2] * np.dtype(data.dtype).itemsize
        most = max(1, BAND_BYTES // max(1, pattern_bytes * self.per_index))
        # Bands follow axis 0's chunks (a chunk row is read whole anyway), split to fit BAND_BYTES.
        starts, at = [], 0
        for size in (data.chunks[0] if data.chunks else (self.shape[0],)):
            for first in range(0, size, most):
                starts.append(at + first)
            at += size
        self.starts = starts + [self.shape[0]]
        self._lock = threading.Lock()
        self._bands = collections.OrderedDict()
        self._pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="clxcorr-read")
        self.dtype, self.pixel_type = None, None
        first = _supported(np.asarray(data[(0,) * (data.ndim - 2)]), "patterns", 0)
        self.dtype, self.pixel_type = first[0].dtype, first[1]
        self.height, self.width = self.shape[-2:]

    def _read(self, b):
        lo, hi = self.starts[b], self.starts[b + 1]
        band = np.asarray(self.data[lo:hi]).reshape((-1,) + self.shape[-2:])
        return _supported(band, "patterns", lo * self.per_index)[0]

    def _band(self, b):
        """Band b's future (made, and kept among the last BANDS_KEPT); with the lock."""
        future = self._bands.get(b)
        if future is None:
            future = self._bands[b] = self._pool.submit(self._read, b)
            while len(self._bands) > BANDS_KEPT:
                self._bands.popitem(last=False)
        else:
            self._bands.move_to_end(b)
        return future

    def __call__(self, i):
        row = i // self.per_index
        b = bisect.bisect_right(self.starts, row) - 1
        with self._lock:
            future = self._band(b)
            if b + 2 < len(self.starts):
                self._band(b + 1)       # read ahead while this one is measured
        band = future.result()
        return band[i - self.starts[b] * self.per_index]

    def pattern(self, i):
        return self(i)

    def close(self):
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._bands.clear()


def bands(data):
    """A lazy (n..., rows, columns) array's patterns as a generator of
    (k, rows, columns) numpy chunks, read one band ahead (offsets' images)."""
    reader = LazyPatterns(data)
    try:
        for b in range(len(reader.starts) - 1):
            with reader._lock:
                future = reader._band(b)
                if b + 2 < len(reader.starts):
                    reader._band(b + 1)
            yield future.result()
    finally:
        reader.close()


class SignalPatterns:
    """A kikuchipy EBSD signal's patterns, scan and geometry (module docstring)."""

    def __init__(self, signal):
        self.signal = signal
        data = signal.data
        if data.ndim < 3:
            raise ArgumentError(f"patterns: a signal of one pattern (shape {data.shape}); strain needs a scan",
                                "CLX_ERR_ARGUMENT")
        self.nav_shape = tuple(int(v) for v in data.shape[:-2])
        self.count = int(np.prod(self.nav_shape))
        self.lazy = is_lazy(data)
        self.data = data

    def index(self, reference):
        """The flat index of a reference given as an index or (row, col); None otherwise."""
        if isinstance(reference, (int, np.integer)) and not isinstance(reference, bool):
            i = int(reference)
        elif (isinstance(reference, tuple) and len(reference) == len(self.nav_shape) == 2
              and all(isinstance(v, (int, np.integer)) for v in reference)):
            i = int(np.ravel_multi_index(tuple(int(v) for v in reference), self.nav_shape))
        else:
            return None
        if not 0 <= i < self.count:
            raise ArgumentError(f"reference: pattern {reference} is outside the signal's {self.count} patterns",
                                "CLX_ERR_ARGUMENT")
        return i

    def options(self, ref):
        """The strain keywords the signal gives (ref: the reference's index, or None)."""
        det = self.signal.detector
        out = {}
        for name, angle in (("azimuthal", getattr(det, "azimuthal", 0)), ("twist", getattr(det, "twist", 0))):
            if angle and abs(float(angle)) > 1e-9:
                raise ArgumentError(f"the signal's detector has a {name} angle of {float(angle):g} degrees: strain "
                                    f"models a detector turned about its x axis alone (sample and detector tilts)",
                                    "CLX_ERR_ARGUMENT")
        pcs = np.asarray(det.pc, dtype=np.float64).reshape(-1, 3)
        if len(pcs) == 1 or np.all(pcs == pcs[0]):
            out["pc"] = tuple(pcs[0])
        elif len(pcs) == self.count and ref is not None:
            out["pc"] = tuple(pcs[ref])
        else:
            out["pc"] = tuple(np.asarray(det.pc_average, dtype=np.float64).ravel()[:3])
        out["sample_tilt"] = float(det.sample_tilt)
        out["detector_tilt"] = float(det.tilt)
        px = float(det.px_size)
        if px != 1 and px > 0:
            out["pixel_size"] = px * max(1, int(det.binning))
        if len(self.nav_shape) == 2:
            axes = self.signal.axes_manager.navigation_axes
            if len(axes) == 2:
                out["step"] = (float(axes[0].scale), float(axes[1].scale))
            out["scan_cols"] = self.nav_shape[1]
            if ref is not None:
                out["ref_point"] = divmod(ref, self.nav_shape[1])
        euler = self._euler(ref)
        if euler is not None:
            out["euler"] = euler
        return out

    def _xmap(self):
        xmap = getattr(self.signal, "xmap", None)
        if xmap is None or getattr(xmap, "size", 0) != self.count or not np.all(xmap.is_in_data):
            return None
        return xmap

    def _euler(self, ref):
        """The crystal map's orientation at the reference (degrees), when it holds any."""
        xmap = self._xmap()
        if xmap is None or ref is None:
            return None
        euler = np.asarray(xmap.rotations.to_euler(), dtype=np.float64).reshape(-1, 3)
        if self.symmetry() is None and not np.any(euler):
            return None          # orix's empty map of a signal never indexed
        return tuple(math.degrees(v) for v in euler[ref])

    def symmetry(self):
        """The crystal map's one point group (orix's), or None."""
        xmap = self._xmap()
        if xmap is None:
            return None
        groups = set()
        for _, phase in xmap.phases_in_data:
            if getattr(phase, "space_group", None) is None:
                return None
            groups.add(phase.point_group)
        return groups.pop() if len(groups) == 1 else None

    def source(self):
        """(patterns for the job: an array or a LazyPatterns, the reference's pixels by index)."""
        if self.lazy:
            return LazyPatterns(self.data)
        return np.asarray(self.data)


def orientations(phi1, Phi, phi2, symmetry=None):
    """An orix Orientation of the Bunge angles (radians), the scan's shape;
    None when orix is not installed."""
    try:
        from orix.quaternion import Orientation
    except ImportError:
        return None
    euler = np.stack([phi1, Phi, phi2], axis=-1)
    if symmetry is None:
        return Orientation.from_euler(euler)
    return Orientation.from_euler(euler, symmetry)


def symmetry_of(name):
    """orix's point group for the symmetry keyword ("cubic", "hexagonal"), or None."""
    try:
        from orix.quaternion import symmetry
    except ImportError:
        return None
    return {"cubic": symmetry.Oh, "hexagonal": symmetry.D6h}.get(name)
