"""Images in every form offsets() takes give the same rows: a 3-D stack, a
4-D scan array, a list, a generator (one that refills one array too), chunks,
non-contiguous arrays, and files (TIFF pages, names with #N)."""

import numpy as np
import pytest

import clxcorr
from tiff import write_tiff


@pytest.fixture(scope="module")
def expected(ctx, texture, windows):
    reference, stack, _ = texture
    return ctx.offsets(reference.astype(np.uint16), stack.astype(np.uint16), windows)


@pytest.fixture(scope="module")
def u16(texture):
    reference, stack, _ = texture
    return reference.astype(np.uint16), stack.astype(np.uint16)


def test_stack_is_not_copied(u16):
    """A C-contiguous uint16 stack's batches are views of it (zero copy)."""
    from clxcorr._images import ImageSource
    _, stack = u16
    assert stack.flags.c_contiguous
    batches = list(ImageSource(stack).batches(2, stack.shape[1:]))
    assert [b.count for b in batches] == [2, 2, 1]
    assert all(np.shares_memory(b.stack, stack) for b in batches)


def test_list_items_are_not_copied(u16):
    from clxcorr._images import ImageSource
    _, stack = u16
    images = list(stack)
    batch = next(ImageSource(images).batches(8, stack.shape[1:]))
    assert all(pixels.__array_interface__["data"] == image.__array_interface__["data"]
               for (pixels, _), image in zip(batch.images, images))


def test_list(ctx, u16, windows, expected):
    reference, stack = u16
    np.testing.assert_array_equal(ctx.offsets(reference, list(stack), windows), expected)


def test_generator(ctx, u16, windows, expected):
    reference, stack = u16
    np.testing.assert_array_equal(ctx.offsets(reference, (image for image in stack), windows), expected)


def test_generator_refilling_one_array(ctx, u16, windows, expected):
    """A reader that fills the same buffer for every image still gives each its own rows."""
    reference, stack = u16

    def frames():
        buffer = np.empty_like(stack[0])
        for image in stack:
            buffer[...] = image
            yield buffer

    np.testing.assert_array_equal(ctx.offsets(reference, frames(), windows), expected)


def test_chunks(ctx, u16, windows, expected):
    """An iterable of 3-D chunks (h5py's dataset[i:j]) is their images in order."""
    reference, stack = u16
    chunks = (stack[i:i + 2] for i in range(0, len(stack), 2))
    np.testing.assert_array_equal(ctx.offsets(reference, chunks, windows), expected)


def test_scan_array(ctx, u16, windows, expected):
    """A (scan rows, scan columns, rows, columns) array: images in C order."""
    reference, stack = u16
    scan = np.concatenate([stack, stack[:1]]).reshape(2, 3, *stack.shape[1:])
    rows = ctx.offsets(reference, scan, windows)
    np.testing.assert_array_equal(rows[:len(expected)], expected)
    assert rows["image"].max() == 5


def test_single_image(ctx, u16, windows, expected):
    reference, stack = u16
    n = len(windows)
    rows = ctx.offsets(reference, stack[1], windows)
    np.testing.assert_array_equal(rows[["dx", "dy"]], expected[n:2 * n][["dx", "dy"]])
    assert (rows["image"] == 0).all()


def test_non_contiguous(ctx, texture, windows, expected):
    """Strided arrays are copied once and give the same rows."""
    reference, stack, _ = texture
    wide = np.zeros((len(stack), stack.shape[1], 2 * stack.shape[2]), dtype=np.uint16)
    wide[:, :, ::2] = stack
    ref_wide = np.zeros((reference.shape[0], 2 * reference.shape[1]), dtype=np.uint16)
    ref_wide[:, ::2] = reference
    strided, ref_strided = wide[:, :, ::2], ref_wide[:, ::2]
    assert not strided.flags.c_contiguous
    np.testing.assert_array_equal(ctx.offsets(ref_strided, strided, windows), expected)
    np.testing.assert_array_equal(ctx.offsets(ref_strided, list(strided), windows), expected)
    fortran = np.asfortranarray(stack.astype(np.float64))
    np.testing.assert_array_equal(ctx.offsets(reference, fortran, windows), expected)


def test_array_likes(ctx, u16, windows, expected):
    """Nested lists are arrays too."""
    reference, stack = u16
    rows = ctx.offsets(reference.astype(float).tolist(), [image.astype(float).tolist() for image in stack[:2]],
                       windows)
    np.testing.assert_array_equal(rows["dx"], expected[:2 * len(windows)]["dx"])


@pytest.fixture(scope="module")
def tiffs(tmp_path_factory, u16):
    reference, stack = u16
    d = tmp_path_factory.mktemp("tiffs")
    write_tiff(d / "reference.tif", [reference])
    paths = []
    for k, image in enumerate(stack):
        paths.append(d / f"image_{k}.tif")
        write_tiff(paths[-1], [image])
    write_tiff(d / "pages.tif", list(stack))
    return d, paths


def test_file_names(ctx, tiffs, windows, expected):
    d, paths = tiffs
    rows = ctx.offsets(d / "reference.tif", [str(p) for p in paths], windows)
    np.testing.assert_array_equal(rows, expected)


def test_multi_page_file(ctx, tiffs, windows, expected):
    """A multi-page TIFF is its pages; NAME#N is one of them."""
    d, _ = tiffs
    np.testing.assert_array_equal(ctx.offsets(d / "reference.tif", d / "pages.tif", windows), expected)
    n = len(windows)
    rows = ctx.offsets(d / "reference.tif", [f"{d}/pages.tif#3", f"{d}/pages.tif#1"], windows)
    np.testing.assert_array_equal(rows["dx"], np.concatenate([expected["dx"][3 * n:4 * n], expected["dx"][n:2 * n]]))


def test_files_and_arrays_mixed(ctx, tiffs, u16, windows, expected):
    d, paths = tiffs
    reference, stack = u16
    rows = ctx.offsets(reference, [paths[0], stack[1], str(paths[2]), stack[3], paths[4]], windows)
    np.testing.assert_array_equal(rows, expected)


def test_imread(tiffs, u16):
    d, _ = tiffs
    reference, stack = u16
    np.testing.assert_array_equal(clxcorr.imread(d / "reference.tif"), reference)
    page = clxcorr.imread(f"{d}/pages.tif#2")
    assert page.dtype == np.uint16 and page.flags.c_contiguous
    np.testing.assert_array_equal(page, stack[2])
