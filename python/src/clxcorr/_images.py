"""Images in: numpy arrays, stacks, iterables and files, in batches for a plan.

The library takes images of three pixel types: uint8, uint16 and float32.
Arrays of those types that are C-contiguous reach it without a copy by the
package: a stack's batches are uploaded from the stack itself
(clx_plan_push_pixels), the images of a list are staged by the library
(clx_plan_push). float64 arrays are converted to float32 and non-contiguous
arrays made contiguous, each with one copy (for a stack, one batch at a
time). The images of an iterator or generator are copied once, as they
come, into their batch's buffer, which is uploaded from there: a reader may
refill one array for every image.

Float images must be finite, as the library's file readers require: a NaN
or infinity raises FormatError (a ValueError) naming the image and the
pixel, "image 3: non-finite pixel value at (x, y)".
"""

import os
import numpy as np

from . import _core
from ._errors import ArgumentError, SizeError

PIXEL_TYPES = {
    np.dtype(np.uint8): _core.PIXEL_U8,
    np.dtype(np.uint16): _core.PIXEL_U16,
    np.dtype(np.float32): _core.PIXEL_F32,
}
# Converted to float32 (one copy): the library's widest pixel type.
CONVERTED = {np.dtype(np.float64): np.dtype(np.float32)}
DTYPES_ACCEPTED = "uint8, uint16, float32 or float64"
_END = object()


def _is_name(obj):
    return isinstance(obj, (str, bytes, os.PathLike))


def _pixels_array(pixels):
    """A library-decoded page as a numpy array viewing its pixels (no copy)."""
    return np.asarray(memoryview(pixels))


def imread(name, scan=None):
    """Reads one image through libclxcorr: TIFF (any page as ``PATH#N``), PNG,
    JPEG, BMP, PGM, or one pattern of an EBSD pattern file (``scan.h5#N`` or
    ``scan.h5#ROW,COL``; ``scan`` picks the scan of a file that holds several).

    Returns a 2-D array (rows, columns) of uint8, uint16 or float32, as the
    file stores it; colour images as luminance. Raises FileError, FormatError,
    or ArgumentError for a multi-page file named without its page.
    """
    file = _core.ImageFile(os.fspath(name), scan)
    if file.first_page != file.last_page:
        raise ArgumentError(f"{os.fsdecode(name)} has {file.last_page + 1} pages; name one as "
                            f"{os.fsdecode(name)}#N (N from 0 to {file.last_page})", "CLX_ERR_ARGUMENT")
    return _pixels_array(file.read(file.first_page))


def scan_info(name, scan=None):
    """The scan of an EBSD pattern file as a dict (``rows``, ``cols``,
    ``step_x``, ``step_y`` in µm, the pattern centre ``pcx``, ``pcy``, ``pcz``
    in Bruker's convention, tilts in degrees; None where the file does not
    say), or None for other image files."""
    return _core.ImageFile(os.fspath(name), scan).scan


def as_image(obj, what, scan=None):
    """One 2-D image as (C-contiguous array, pixel type); a name is read."""
    array = imread(obj, scan) if _is_name(obj) else np.asarray(obj)
    if array.ndim != 2:
        raise ArgumentError(f"{what}: expected a 2-D image (rows, columns), got shape {array.shape}",
                            "CLX_ERR_ARGUMENT")
    return _supported(array, what)


def _supported(array, what, first=None):
    """The array in a pixel type the library takes, C-contiguous, and its type.

    Floats are refused for a NaN or infinity (a float64 beyond float32's
    range becomes one), as the library's file readers refuse them: one would
    spread through the pre-filter into the windows around it. The message
    names `what`, or for a stack (``first`` given) "image N" of the run.
    """
    dtype = CONVERTED.get(array.dtype, array.dtype)
    if dtype not in PIXEL_TYPES:
        raise ArgumentError(f"{what}: dtype {array.dtype} is not supported ({DTYPES_ACCEPTED})",
                            "CLX_ERR_ARGUMENT")
    with np.errstate(over="ignore"):
        array = np.ascontiguousarray(array, dtype=dtype)
    if dtype == np.float32 and array.size:
        _core.check_finite(array, array.shape[-1], array.shape[-2], first or 0, None if first is not None else what)
    return array, PIXEL_TYPES[dtype]


class Batch:
    """Images for one push: `stack` (count, rows, columns) in one buffer, or
    `images`, a list of (array, pixel type)."""

    def __init__(self, first, stack=None, stack_type=None, images=None):
        self.first = first
        self.stack, self.stack_type, self.images = stack, stack_type, images
        self.count = len(stack) if stack is not None else len(images)

    def push(self, plan):
        if self.stack is not None:
            plan.push_stack(self.stack, self.stack_type, self.count)
        else:
            plan.push_images(self.images)


class ImageSource:
    """The images of one run, in input order, whatever form they came in.

    ``count`` is the number of images when it is known beforehand (arrays,
    stacks, lists; files are opened once to count their pages, as the
    command does), else None (generators).
    """

    def __init__(self, images, scan=None):
        self._scan = scan
        self._stack = None
        self._items = None
        # An iterator's images are copied as they come (into the batch's one
        # buffer), for it may hand out one array again and again.
        self._copied = False
        self.count = None
        if isinstance(images, np.ndarray) or (hasattr(images, "__array__") and not isinstance(images, (list, tuple))):
            array = np.asarray(images)
            if array.ndim < 2:
                raise ArgumentError(f"images: expected an image (rows, columns) or a stack of them "
                                    f"(..., rows, columns), got shape {array.shape}", "CLX_ERR_ARGUMENT")
            if array.ndim == 2:
                self._items = [array]
                self.count = 1
            else:
                # (scan rows, scan columns, rows, columns) and the like: images in C order.
                self._stack = array.reshape(-1, *array.shape[-2:])
                self.count = len(self._stack)
        elif _is_name(images):
            self._items = [images]
            self.count = self._count_pages(self._items)
        else:
            try:
                iterator = iter(images)
            except TypeError:
                raise ArgumentError(f"images: expected an array, a file name or an iterable of them, got "
                                    f"{type(images).__name__}", "CLX_ERR_ARGUMENT") from None
            if isinstance(images, (list, tuple)):
                self._items = images
                self.count = self._count_pages(images)
            else:
                self._items = iterator
                self._copied = True

    def _count_pages(self, items):
        count = 0
        for item in items:
            if _is_name(item):
                file = _core.ImageFile(os.fspath(item), self._scan)
                count += file.last_page - file.first_page + 1
            else:
                shape = np.shape(item)
                count += int(np.prod(shape[:-2])) if len(shape) > 2 else 1
        return count

    def batches(self, size, shape):
        """Batches of at most `size` images, each checked to have `shape`."""
        if self._stack is not None:
            return self._stack_batches(size, shape)
        return self._item_batches(size, shape)

    def _stack_batches(self, size, shape):
        stack = self._stack
        if stack.shape[1:] != shape:
            _size_error(0, stack.shape[1:], shape)
        for first in range(0, len(stack), size):
            # A view of contiguous supported pixels; else this batch copied once.
            part, pixel_type = _supported(stack[first:first + size], "images", first)
            yield Batch(first, stack=part, stack_type=pixel_type)

    def _images(self):
        """Every image as a 2-D array-like, or (ImageFile, page) for a file's."""
        for item in self._items:
            if _is_name(item):
                file = _core.ImageFile(os.fspath(item), self._scan)
                for page in range(file.first_page, file.last_page + 1):
                    yield file, page
                continue
            array = np.asarray(item)
            if array.ndim > 2:
                # A chunk of images (h5py's dataset[i:j], say): its images in order.
                yield from array.reshape(-1, *array.shape[-2:])
            else:
                yield array

    def _item_batches(self, size, shape):
        images = self._images()
        index = 0
        carried = None      # an image of another pixel type than its batch's: the next batch's first
        while True:
            batch, buffer = [], None
            while len(batch) < size:
                if carried is not None:
                    decoded, carried = carried, None
                else:
                    item = next(images, _END)
                    if item is _END:
                        break
                    decoded = self._decoded(item, index + len(batch))
                    if decoded[0].shape != shape:
                        _size_error(index + len(batch), decoded[0].shape, shape)
                if self._copied:
                    # Copied before the iterator is asked again: it may refill this array.
                    if batch and decoded[1] != batch[0][1]:
                        carried = decoded
                        break
                    if buffer is None:
                        buffer = np.empty((size,) + shape, dtype=decoded[0].dtype)
                    buffer[len(batch)] = decoded[0]
                batch.append(decoded)
            if not batch:
                return
            if self._copied:
                yield Batch(index, stack=buffer[:len(batch)], stack_type=batch[0][1])
            else:
                yield Batch(index, images=batch)
            index += len(batch)

    @staticmethod
    def _decoded(item, index):
        if isinstance(item, tuple):
            file, page = item
            array = _pixels_array(file.read(page))
            return array, PIXEL_TYPES[array.dtype]
        array = np.asarray(item)
        if array.ndim != 2:
            raise ArgumentError(f"image {index}: expected a 2-D image (rows, columns), got shape {array.shape}",
                                "CLX_ERR_ARGUMENT")
        return _supported(array, f"image {index}")


def _size_error(index, got, want):
    raise SizeError(f"image {index} is {got[-1]}x{got[-2]} but the reference is {want[1]}x{want[0]}",
                    "CLX_ERR_SIZE")
