"""Context (one OpenCL device) and its offsets, all at once or batch by batch."""

import logging

import numpy as np

from . import _core
from ._devices import Device, devices
from ._errors import StateError
from ._images import ImageSource, as_image
from ._options import plan_fields, result_groups
from ._results import RAW, result_dtype, rows
from ._windows import as_regions
from . import _kikuchipy, _strain

_OFFSETS_OPTIONS_DOC = """
        reference: the reference image: a 2-D array (rows, columns) of uint8,
            uint16, float32 or float64, or an image file name (``PATH``,
            ``PATH#N`` for a page or pattern).
        images: the images to measure, each of the reference's size: a 2-D
            array (one image), an array of three or more dimensions (a stack:
            the last two axes are the images', the others are walked in C
            order, so a kikuchipy ``(scan rows, scan columns, rows, columns)``
            pattern array gives image ``i = row * columns + column``), a file
            name (every page of a multi-page TIFF or every pattern of an EBSD
            pattern file such as ``scan.h5``; ``scan.h5#N`` one of them), or an
            iterable or generator of arrays and names (a 3-D array in it is a
            chunk of images). A kikuchipy ``EBSD`` signal gives its patterns
            (``signal.data``); a lazy one's, or any dask array's, are read
            band by band (a row of chunks at a time), never all at once.
        windows: an (N, 4) array of (x, y, w, h): each window's top-left pixel
            (x the column, y the row, from 0) and size in pixels, all of one
            size, inside the reference; :func:`clxcorr.grid` or
            :func:`clxcorr.read_windows` make one.

    Options (each as the command's option of the same name; the library's
    defaults when left out):
        mode: "accurate" (default: pre-filter, window offset, refinement) or
            "seed" (doc/conventions.md's method, step for step).
        method: "auto" (default: measured per device and job), "fft" or "direct".
        max_shift: search only shifts with abs(dx), abs(dy) <= max_shift px
            (0: every shift of the window).
        estimator: sub-pixel estimator: "default", "lsq", "gauss3",
            "parabola3" or "centroid".
        fit_size: F of the F x F values the estimator sees (odd, >= 3).
        batch: images per push (0: sized from device memory).
        double: every device stage in double precision (the context's
            device needs fp64).
        params: kernel parameters, "KEY=VALUE,..." or a dict.
        fft: the FFT library, "vkfft", "clfft", "cpu" (clxcorr's own, the
            default on CPU devices), "local" (clxcorr's own for GPUs, the
            seed mode's default on NVIDIA GPUs) or "auto".
        prefilter: accurate mode's filter spec ("background:8" by default;
            None or "none": none).
        window_fn: "hann" (default), "tukey" or "none"; window_alpha:
            Tukey's taper fraction (0 to 1).
        passes: correlation passes (>= 1): one plus the window-offset passes.
        refine: "icgn" (default), "correlation" or "none"; iterations: at
            most this many refinement iterations.
        shape: IC-GN's shape function, 1 (first order, the default: adds
            the columns dudx, dudy, dvdx, dvdy, exx, eyy, exy) or 0
            (translation).
        tol: the refinement stops below this correction, px.
        fine_shift: search radius of the window-offset passes, px.
        interp: the refinement's interpolation: "default", "lanczos3",
            "keys", "bspline3" or "bspline5".
        scan: the scan to read in pattern files that hold several ("Scan 1").
"""

_RESULT_DOC = """
        The rows, one per image and window, images in input order and windows in
        the order given, with the columns ``clxcorr offsets`` writes for the same
        options (``image`` is the image's index, from 0, instead of its name):

            image       int64    the image's index in the input, from 0
            region      int32    the window's index in ``windows``, from 0
            x, y        float64  the window's centre in the reference, px:
                                 x0 + (w - 1) / 2, y0 + (h - 1) / 2
            dx, dy      float64  the offset, px: the position of a feature in the
                                 image minus its position in the reference (an
                                 image moved 3 px right and 1 px down gives
                                 dx = 3, dy = 1); x to the right, y down
            peak        float64  the first pass's correlation maximum (raw)
            flags       uint32   0 when trusted, else a sum of clxcorr.FLAGS bits
          accurate mode:
            zncc        float64  zero-normalised correlation at the final offset, -1 to 1
            peak_ratio  float64  the first pass's peak over its highest other local maximum
            iterations  int32    refinement iterations done
          accurate mode with refine="icgn" (the default):
            znssd       float64  the final zero-normalised sum of squared differences, 2 (1 - zncc)
            sigma_dx, sigma_dy   float64  standard deviations of dx and dy, px
          and with shape=1 (the default):
            dudx, dudy, dvdx, dvdy  float64  the displacement's gradient over the
                                 window (u = dx, v = dy; per px, dimensionless)
            exx, eyy, exy       float64  Green-Lagrange strain, (F^T F - I) / 2
                                 with F = I + grad u
"""


def _log_level():
    """The library's log level for the "clxcorr" logger's effective level."""
    level = logging.getLogger("clxcorr").getEffectiveLevel()
    return 2 if level <= logging.DEBUG else 1 if level <= logging.INFO else 0


class Context:
    """One OpenCL device, with its compiled kernels, ready to measure offsets.

    Args:
        device: which device: None (the environment variable CLXCORR_DEVICE
            if set, else the first GPU, else the first device), a
            :class:`clxcorr.Device` from :func:`clxcorr.devices`, or a string as
            ``clxcorr --device`` takes it: "P:D", part of a device, vendor or
            platform name ("nvidia", "pocl"), "gpu", "cpu" or "accelerator".
        double: skip devices without double precision (for ``double=True``).
        cache: read and write compiled kernels in the cache
            (``$XDG_CACHE_HOME/clxcorr``); False compiles them afresh.
        cache_dir, kernel_dir: other directories for the kernel cache and the
            kernel sources.
        tuning: use the tuning file ``clxcorr tune`` writes (True) or the
            shipped defaults.

    The library's log goes to the "clxcorr" logger of :mod:`logging` (its
    level at opening chooses how much the library says).

    A context may be used from one thread at a time; calls from several
    threads wait for each other. Different contexts run in parallel (the GIL
    is released while the device works). Close it with :meth:`close` or a
    ``with`` block; it is closed when collected otherwise.

    Raises:
        NoDeviceError: no device matches or can run the job.
    """

    def __init__(self, device=None, *, double=False, cache=True, cache_dir=None, kernel_dir=None, tuning=True):
        spec = device.spec if isinstance(device, Device) else device
        self._core = _core.Context(spec, need_fp64=bool(double), no_cache=not cache, cache_dir=cache_dir,
                                   kernel_dir=kernel_dir, log_level=_log_level(), no_tuning=not tuning)
        d = self._core.device
        spec = f"{d['platform_index']}:{d['device_index']}"
        self._device = next((x for x in devices() if x.spec == spec), None)

    @property
    def device(self):
        """The :class:`clxcorr.Device` this context runs on."""
        return self._device

    def close(self):
        """Releases the device. Streams still open on it stop (StateError)."""
        self._core.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        state = "closed" if self._core.closed else repr(self._device)
        return f"<clxcorr.Context {state}>"

    def offsets(self, reference, images, windows, **options):
        return _collect(self.offsets_stream(reference, images, windows, **options))

    def offsets_stream(self, reference, images, windows, **options):
        return OffsetStream(self, reference, images, windows, options)

    def strain(self, reference, patterns, windows, **options):
        return _strain.strain(self, reference, patterns, windows, **options)

    offsets.__doc__ = """Measures how each window of each image moved relative to the reference.

    Args:""" + _OFFSETS_OPTIONS_DOC + """
    Returns:
        A numpy structured array.""" + _RESULT_DOC + """
    Copies: a uint8, uint16 or float32 C-contiguous stack is uploaded from
    its own memory, and the images of a list are handed to the library as
    they are (it stages them); float64 arrays are converted to float32 and
    non-contiguous arrays made contiguous, one copy each (for a stack, one
    batch at a time); a generator's images are copied once into their
    batch's buffer (a reader may refill one array). The GIL is released
    while the device works.

    Raises:
        ArgumentError: an image is not 2-D, a dtype is not one of the four, an
            option is out of range (the library's message says which).
        SizeError: an image's size is not the reference's.
        RegionError: windows not (N, 4), of two sizes, or outside the image.
        FileError, FormatError: an image file is missing or unreadable.
        TypeError: an unknown option.
        Error: any other failure of the library or the device, with its message.

    Example:
        >>> ctx = clxcorr.Context()
        >>> r = ctx.offsets(reference, patterns, clxcorr.grid(reference, (5, 5), (128, 128), margin=64))
        >>> r["dx"].reshape(len(patterns), -1).mean(axis=1)     # mean dx per image
    """

    strain.__doc__ = """HR-EBSD, as ``clxcorr strain``: each pattern's elastic strain and lattice
    rotation relative to the reference, from the shifts of its windows
    (doc/hrebsd.md). The same job as the command's (libclxcorr's
    clx_strain_job): the same geometry, correlations, fits, remapping and
    references per grain, so the same numbers as its rows.

    Args:
        reference: the reference pattern: a 2-D array, an index into
            ``patterns`` (an array), or an image name (``scan.h5#ROW,COL``:
            its file's header gives its pattern centre, scan point and
            orientation). None with ``grains``: each grain has its own.
        patterns: an array (n, rows, columns) or (scan rows, scan columns,
            rows, columns), a dask array (read band by band: a row of
            chunks at a time), a pattern file's name (every pattern of its
            scan; its header gives the geometry the keywords do not), or a
            kikuchipy ``EBSD`` signal, lazy or not: its data (a lazy one's
            read band by band, never whole), its detector (pc, Bruker's
            convention as kikuchipy's: the reference point's when one per
            point; tilt, sample_tilt; px_size x binning, unless kikuchipy's
            placeholder 1 um), its navigation axes' scales as step, its
            scan (rows, columns) and its crystal map's orientation at the
            reference, as the command reads them from the signal's h5ebsd
            file. Keywords given win over the signal's. With a signal (or
            an array) the reference may be an index, or (row, col).
        windows: an (N, 4) array of (x, y, w, h), at least 4 spread over the
            pattern (:func:`clxcorr.grid`).

    Options (each the command's option of the same name, ``-`` as ``_``;
    what is left out comes from the pattern file, else is asked for by name):
        pc: (x, y, z) the reference's pattern centre, Bruker's convention.
        sample_tilt, detector_tilt: degrees.
        pattern_centres: "auto", "file", "beam-shift" or "fixed".
        pixel_size: a pattern pixel on the detector, um; step: (x, y) um;
        scan_cols: patterns of an (n, ...) array lie C to a scan row;
        ref_point: (row, col) of the reference.
        euler: (phi1, Phi, phi2) Bunge degrees for every pattern;
        orientations: an .ang or .ctf file; stiffness: "cubic:C11,C12,C44"
        or "hexagonal:C11,C12,C13,C33,C44" GPa (the traction-free strain).
        min_zncc, min_peak_ratio, max_residual: the fit's screening.
        remap (bool), remap_rotation (bool), remap_tol (degrees), remap_passes.
        grains: "auto" or a grain map image; grain_angle (degrees),
        min_grain, symmetry ("cubic", "hexagonal"), grain_references (file).
        scan: the scan of containers that hold several.
        progress: a callable(done, total) called from the calling thread
            as rows come in (about 20 times a second, and once at the end),
            or True for tqdm's bar when tqdm is installed.
        The correlation's options are those of :meth:`offsets` (default here:
        window_fn="tukey", window_alpha=0.5, as the command).

    Returns:
        A dict of numpy arrays laid on the scan ((scan rows, scan columns) for
        a pattern file or a 4-D array, else (n,) or by scan_cols), with the
        command's columns and units:

            e11 e12 e13 e22 e23 e33  float64  strain, sample frame, tensor shears
            w1 w2 w3     float64  rotation (rad) about the sample's x, y, z
            residual     float64  RMS misfit of the fitted shifts, px
            windows      int64    windows used
            flags        int64    0 a full fit, else the command's bits (1 few
                                  windows, 2 singular, 4 deviatoric, 8 dropped,
                                  16 unsettled, 32 in no grain)
            grain ref_row ref_col  int64  with grains
            phi1 Phi phi2  float64  refined orientation (Bunge, rad), where the
                                  reference's is known
            image        int64    the pattern's index in the input
            scan_row scan_col  int64  on a 2-D layout
            scan_x scan_y  float64  the point's position (um), over a pattern
                                  file's scan whose header gives its steps

        Points without a pattern hold nan (-1 for the integers). With
        orientations and orix installed, ``orientation``: an orix
        ``Orientation`` of phi1, Phi, phi2 on the same layout (symmetry the
        signal's crystal map's point group, or the symmetry keyword's).

    Ctrl-C (KeyboardInterrupt, or any exception the progress callable
    raises) stops the run: the patterns not yet loaded are not measured,
    the batches in flight finish (well under a second), and the exception
    propagates with ``.results``: this dict for the rows delivered before
    it (nan and -1 elsewhere).

    Raises:
        ArgumentError: missing or wrong geometry, too few windows or windows
            on a line (the message names the option, as the command's).
        FileError, FormatError: a pattern, orientation or grain file.
    """

    offsets_stream.__doc__ = """The same as :meth:`offsets`, batch by batch: an :class:`OffsetStream`
    that yields one structured array per batch of images (the library's
    batch size), as soon as the device has it, while the next batch is
    already on the device. Memory stays bounded for any number of images,
    and a generator's images are read while the device works.

    The reference, windows and options are checked, and the plan made (kernels,
    FFT plans, the method measured), when this is called.

    Args:""" + _OFFSETS_OPTIONS_DOC


def _collect(stream):
    with stream:
        parts = list(stream)
    return np.concatenate(parts) if parts else np.empty(0, dtype=stream.dtype)


class OffsetStream:
    """Results batch by batch (:meth:`Context.offsets_stream`).

    Iterating yields structured arrays (the columns of :meth:`Context.offsets`),
    one per batch, images in input order. An error in the middle (an
    unreadable file, an image of another size) is raised after the batches
    before it were delivered. Close it (or leave a ``with`` block) to stop
    early and free the device memory.

    Attributes:
        dtype: the rows' structured dtype.
        batch_size: the most images per batch.
        method: "fft" or "direct", the correlation path the library chose;
            explanation: how it chose; fft: the FFT library ("" on the direct
            path); tuning: where the kernel parameters came from;
            parameters: every kernel parameter with its value.
    """

    def __init__(self, context, reference, images, windows, options):
        options = dict(options)
        scan = options.pop("scan", None)
        fields = plan_fields(options, "offsets")
        ref, ref_type = as_image(reference, "reference", scan)
        self._regions = as_regions(windows)
        if _kikuchipy.is_signal(images):
            images = images.data
        if _kikuchipy.is_lazy(images):
            images = _kikuchipy.bands(images)
        source = ImageSource(images, scan)
        if source.count is not None:
            fields["expected_images"] = source.count
        self.dtype = result_dtype(result_groups(fields))
        if context._core.closed:
            raise StateError("the context was closed", "CLX_ERR_STATE")
        self._plan = _core.Plan(context._core, ref, ref.shape[1], ref.shape[0], ref_type, self._regions, fields)
        self._batches = source.batches(self._plan.batch_size, ref.shape)
        self._pending = None      # the batch on the device
        self._error = None        # raised once the batches before it are out
        self._started = False

    batch_size = property(lambda self: self._plan.batch_size)
    method = property(lambda self: self._plan.method)
    explanation = property(lambda self: self._plan.explanation)
    fft = property(lambda self: self._plan.fft)
    tuning = property(lambda self: self._plan.tuning)
    parameters = property(lambda self: self._plan.parameters)

    def __iter__(self):
        return self

    def _gather(self):
        """The next batch from the images (read and checked, not pushed), or
        None; an error is kept to be raised after the batches before it."""
        if self._error is not None:
            return None
        try:
            return next(self._batches, None)
        except Exception as e:      # noqa: BLE001 - raised in order, by __next__
            self._error = e
            return None

    def _push(self, batch):
        """Pushes a batch; the batch on the device, or None after an error (kept)."""
        if batch is None:
            return None
        try:
            batch.push(self._plan)
            return batch
        except Exception as e:      # noqa: BLE001 - raised in order, by __next__
            self._error = e
            return None

    def __next__(self):
        if self._plan is None:
            raise StopIteration
        if not self._started:
            self._started = True
            self._pending = self._push(self._gather())
        batch = self._pending
        if batch is None:
            error, self._error = self._error, None
            self.close()
            if error is not None:
                raise error
            raise StopIteration
        # The next batch is read (files decoded, a generator run) while the
        # device works on this one; it is pushed as soon as this one is read.
        following = self._gather()
        raw = np.empty(batch.count * len(self._regions), dtype=RAW)
        try:
            self._plan.read(raw)
        except Exception:
            self.close()
            raise
        self._pending = self._push(following)
        return rows(raw, batch.first, batch.count, self._regions, self.dtype)

    def close(self):
        """Stops: releases the plan (waiting for the device) and the images."""
        if self._plan is not None:
            self._plan.close()
        self._plan = None
        self._pending = None
        self._batches = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
