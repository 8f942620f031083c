"""offsets(): every pixel dtype, the sign convention, the columns each option
set gives, and the streaming form against the whole."""

import numpy as np
import pytest

import clxcorr
from conftest import SHIFTS

# The accurate mode finds these texture shifts within a few hundredths of a
# pixel (0.022 px at worst on PoCL), 0.12 px without refinement; the seed
# mode's estimator is biased by a pixel on 24 x 24 windows.
ACCURATE_TOLERANCE = 0.05
TOLERANCE = {"seed": 1.2, "none": 0.2}


def errors(rows, shifts=SHIFTS):
    return np.hypot(rows["dx"] - shifts[rows["image"], 0], rows["dy"] - shifts[rows["image"], 1])


@pytest.mark.parametrize("dtype", [np.uint16, np.float32, np.float64])
def test_each_dtype_finds_the_shifts(ctx, texture, windows, dtype):
    reference, stack, shifts = texture
    rows = ctx.offsets(reference.astype(dtype), stack.astype(dtype), windows)
    assert len(rows) == len(stack) * len(windows)
    assert errors(rows).max() < ACCURATE_TOLERANCE
    assert (rows["flags"] == 0).all()


def test_dtypes_give_the_same_rows(ctx, texture, windows):
    """The same whole-number pixels as uint16, float32 and float64 are the same
    images to the library (float64 becomes float32 exactly)."""
    reference, stack, _ = texture
    by_dtype = [ctx.offsets(reference.astype(t), stack.astype(t), windows) for t in (np.uint16, np.float32,
                                                                                       np.float64)]
    for rows in by_dtype[1:]:
        np.testing.assert_array_equal(rows, by_dtype[0])


def test_uint8(ctx, texture, windows):
    reference, stack, _ = texture
    to8 = lambda a: np.round(a / 16).astype(np.uint8)       # noqa: E731 - 0 to 250
    rows = ctx.offsets(to8(reference), to8(stack), windows)
    assert errors(rows).max() < ACCURATE_TOLERANCE


def test_mixed_dtypes(ctx, texture, windows):
    """A uint8 reference with float32 images: the library widens, it does not mind."""
    reference, stack, _ = texture
    rows = ctx.offsets(np.round(reference / 16).astype(np.uint8), stack.astype(np.float32), windows)
    assert errors(rows).max() < ACCURATE_TOLERANCE


def test_sign_convention(ctx, texture, windows):
    """An image moved 2 px right and 1 px down reports dx = 2, dy = 1."""
    reference, _, _ = texture
    image = np.roll(reference, shift=(1, 2), axis=(0, 1))
    rows = ctx.offsets(reference, image, windows)
    np.testing.assert_allclose(rows["dx"], 2, atol=ACCURATE_TOLERANCE)
    np.testing.assert_allclose(rows["dy"], 1, atol=ACCURATE_TOLERANCE)


def test_row_layout(ctx, texture, windows):
    reference, stack, _ = texture
    rows = ctx.offsets(reference, stack[:2], windows)
    n = len(windows)
    np.testing.assert_array_equal(rows["image"], np.repeat([0, 1], n))
    np.testing.assert_array_equal(rows["region"], np.tile(np.arange(n), 2))
    np.testing.assert_array_equal(rows["x"][:n], windows[:, 0] + (windows[:, 2] - 1) / 2)
    np.testing.assert_array_equal(rows["y"][:n], windows[:, 1] + (windows[:, 3] - 1) / 2)
    assert (rows["zncc"] > 0.99).all() and (rows["iterations"] >= 1).all()
    assert (rows["sigma_dx"] >= 0).all() and np.isfinite(rows["znssd"]).all()


BASE = ("image", "region", "x", "y", "dx", "dy", "peak", "flags")
ACCURATE = ("zncc", "peak_ratio", "iterations")
ICGN = ("znssd", "sigma_dx", "sigma_dy")
SHAPE = ("dudx", "dudy", "dvdx", "dvdy", "exx", "eyy", "exy")


@pytest.mark.parametrize("options, columns", [
    ({}, BASE + ACCURATE + ICGN + SHAPE),
    ({"shape": 0}, BASE + ACCURATE + ICGN),
    ({"mode": "seed"}, BASE),
    ({"refine": "correlation"}, BASE + ACCURATE),
    ({"refine": "none"}, BASE + ACCURATE),
    ({"shape": 1}, BASE + ACCURATE + ICGN + SHAPE),
])
def test_columns_follow_the_options(ctx, texture, windows, options, columns):
    reference, stack, _ = texture
    rows = ctx.offsets(reference, stack[:2], windows, **options)
    assert rows.dtype.names == columns
    tolerance = TOLERANCE.get(options.get("mode"), TOLERANCE.get(options.get("refine"), ACCURATE_TOLERANCE))
    assert errors(rows).max() < tolerance


def test_shape_function_gradients(ctx, texture, windows):
    """With shape=1 a pure translation has no gradient."""
    reference, stack, _ = texture
    rows = ctx.offsets(reference, stack, windows, shape=1)
    for name in SHAPE:
        assert np.abs(rows[name]).max() < 0.01


def test_options_reach_the_library(ctx, texture, windows):
    reference, stack, _ = texture
    stream = ctx.offsets_stream(reference, stack, windows, method="direct", max_shift=4, batch=2,
                                params={"argmax_wg": 64}, prefilter=None, window_fn="tukey", window_alpha=0.5,
                                interp="bspline5", tol=1e-4, iterations=12, estimator="gauss3")
    with stream:
        assert stream.method == "direct" and stream.fft == ""
        assert stream.batch_size == 2
        assert "argmax_wg=64" in stream.parameters
        parts = list(stream)
    assert [len(p) for p in parts] == [2 * len(windows)] * 2 + [len(windows)]
    assert errors(np.concatenate(parts)).max() < ACCURATE_TOLERANCE


def test_stream_equals_offsets(ctx, texture, windows):
    reference, stack, _ = texture
    whole = ctx.offsets(reference, stack, windows, batch=2)
    with ctx.offsets_stream(reference, stack, windows, batch=2) as stream:
        parts = list(stream)
    assert len(parts) == 3
    assert [p["image"].min() for p in parts] == [0, 2, 4]
    np.testing.assert_array_equal(np.concatenate(parts), whole)


def test_stream_closed_early(ctx, texture, windows):
    reference, stack, _ = texture
    stream = ctx.offsets_stream(reference, stack, windows, batch=2)
    first = next(stream)
    stream.close()
    assert len(first) == 2 * len(windows)
    assert list(stream) == []


def test_no_images(ctx, texture, windows):
    reference, _, _ = texture
    rows = ctx.offsets(reference, [], windows)
    assert len(rows) == 0 and rows.dtype.names[:2] == ("image", "region")


def test_double_precision(ctx, texture, windows):
    if not ctx.device.fp64:
        pytest.skip("the device has no double precision")
    reference, stack, _ = texture
    rows = ctx.offsets(reference, stack, windows, double=True)
    assert errors(rows).max() < ACCURATE_TOLERANCE
