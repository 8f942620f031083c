"""Every documented error raises its exception class with the message that
says what is wrong (the library's own where the library finds it), and
nothing is half done."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import clxcorr
from tiff import write_tiff


@pytest.fixture(scope="module")
def data(texture, windows):
    reference, stack, _ = texture
    return reference.astype(np.uint16), stack.astype(np.uint16), windows


def raises(cls, match, call):
    """Calls call(); it must raise cls, with a message matching `match`."""
    with pytest.raises(cls, match=match) as info:
        call()
    assert isinstance(info.value, clxcorr.Error) or cls is TypeError
    return info.value


# ---- shapes and dtypes ----

def test_reference_not_2d(ctx, data):
    reference, stack, windows = data
    e = raises(clxcorr.ArgumentError, r"^reference: expected a 2-D image \(rows, columns\), got shape \(3, 80, 96\)$",
               lambda: ctx.offsets(stack[:3], stack, windows))
    assert e.status == "CLX_ERR_ARGUMENT" and isinstance(e, ValueError)


def test_images_not_2d(ctx, data):
    reference, stack, windows = data
    raises(clxcorr.ArgumentError, r"^images: expected an image \(rows, columns\) or a stack of them",
           lambda: ctx.offsets(reference, stack[0, 0], windows))
    raises(clxcorr.ArgumentError, r"^image 1: expected a 2-D image \(rows, columns\), got shape \(96,\)$",
           lambda: ctx.offsets(reference, [stack[0], stack[0, 0]], windows))
    raises(clxcorr.ArgumentError, r"^images: expected an array, a file name or an iterable of them, got int$",
           lambda: ctx.offsets(reference, 7, windows))


def test_dtype_not_supported(ctx, data):
    reference, stack, windows = data
    raises(clxcorr.ArgumentError, r"^reference: dtype int32 is not supported \(uint8, uint16, float32 or float64\)$",
           lambda: ctx.offsets(reference.astype(np.int32), stack, windows))
    raises(clxcorr.ArgumentError, r"^images: dtype complex128 is not supported",
           lambda: ctx.offsets(reference, stack.astype(complex), windows))


# ---- non-finite pixels ----

def test_nan_in_the_reference(ctx, data):
    reference, stack, windows = data
    bad = reference.astype(np.float32)
    bad[20, 10] = np.nan
    e = raises(clxcorr.FormatError, r"^reference: non-finite pixel value at \(10, 20\)$",
               lambda: ctx.offsets(bad, stack.astype(np.float32), windows))
    assert e.status == "CLX_ERR_FORMAT" and isinstance(e, ValueError)


def test_nan_or_inf_in_an_image(ctx, data):
    """In a stack, a list, an iterator and float64 beyond float32's range:
    each names the image by its index in the run and the first bad pixel."""
    reference, stack, windows = data
    floats = stack.astype(np.float32)
    floats[3, 7, 5] = np.nan
    raises(clxcorr.FormatError, r"^image 3: non-finite pixel value at \(5, 7\)$",
           lambda: ctx.offsets(reference, floats, windows))
    raises(clxcorr.FormatError, r"^image 3: non-finite pixel value at \(5, 7\)$",
           lambda: ctx.offsets(reference, floats, windows, batch=2))
    raises(clxcorr.FormatError, r"^image 3: non-finite pixel value at \(5, 7\)$",
           lambda: ctx.offsets(reference, list(floats), windows))
    raises(clxcorr.FormatError, r"^image 3: non-finite pixel value at \(5, 7\)$",
           lambda: ctx.offsets(reference, iter(list(floats)), windows))
    wide = stack.astype(np.float64)
    wide[1, 0, 2] = 1e300
    wide[1, 4, 0] = -np.inf
    raises(clxcorr.FormatError, r"^image 1: non-finite pixel value at \(2, 0\)$",
           lambda: ctx.offsets(reference, wide, windows))


def test_nan_stops_before_its_batch(ctx, data):
    """The batches before the bad image keep their rows, and none of them is nan."""
    reference, stack, windows = data
    floats = stack.astype(np.float32)
    floats[4, 40, 48] = np.inf
    stream = ctx.offsets_stream(reference, iter(list(floats)), windows, batch=2)
    got = [next(stream), next(stream)]
    assert [sorted(np.unique(b["image"])) for b in got] == [[0, 1], [2, 3]]
    assert all(np.isfinite(b["dx"]).all() and np.isfinite(b["dy"]).all() for b in got)
    with pytest.raises(clxcorr.FormatError, match=r"^image 4: non-finite pixel value at \(48, 40\)$"):
        next(stream)


# ---- sizes ----

def test_size_mismatch(ctx, data):
    reference, stack, windows = data
    other = np.zeros((80, 90), dtype=np.uint16)
    e = raises(clxcorr.SizeError, r"^image 0 is 90x80 but the reference is 96x80$",
               lambda: ctx.offsets(reference, np.stack([other, other]), windows))
    assert e.status == "CLX_ERR_SIZE"
    raises(clxcorr.SizeError, r"^image 2 is 90x80 but the reference is 96x80$",
           lambda: ctx.offsets(reference, [stack[0], stack[1], other], windows))


def test_size_mismatch_in_a_stream_comes_after_the_batches_before_it(ctx, data):
    reference, stack, windows = data
    images = [stack[0], stack[1], stack[2], np.zeros((80, 90), dtype=np.uint16)]
    stream = ctx.offsets_stream(reference, iter(images), windows, batch=2)
    first = next(stream)
    assert list(np.unique(first["image"])) == [0, 1]
    with pytest.raises(clxcorr.SizeError, match="^image 3 is 90x80"):
        next(stream)
    assert list(stream) == []


# ---- windows ----

def test_window_outside(ctx, data):
    reference, stack, windows = data
    e = raises(clxcorr.RegionError, r"^window 0 \(x=80 y=8 w=24 h=24\) extends outside the 96x80 image$",
               lambda: ctx.offsets(reference, stack, [[80, 8, 24, 24]]))
    assert e.status == "CLX_ERR_REGION" and isinstance(e, ValueError)


def test_windows_of_two_sizes(ctx, data):
    reference, stack, _ = data
    raises(clxcorr.RegionError, r"^window 1 is 20x20 but window 0 is 24x24: all windows must have one size$",
           lambda: ctx.offsets(reference, stack, [[8, 8, 24, 24], [40, 8, 20, 20]]))


def test_windows_not_n_by_4(ctx, data):
    reference, stack, _ = data
    raises(clxcorr.RegionError, r"^windows: expected an \(N, 4\) array of \(x, y, w, h\), got shape \(4,\)$",
           lambda: ctx.offsets(reference, stack, [8, 8, 24, 24]))
    raises(clxcorr.RegionError, r"^windows: \(x, y, w, h\) must be whole numbers of pixels$",
           lambda: ctx.offsets(reference, stack, [[8.5, 8, 24, 24]]))
    raises(clxcorr.RegionError, r"^0 windows: give at least one",
           lambda: ctx.offsets(reference, stack, np.zeros((0, 4), dtype=int)))


def test_windows_file(tmp_path):
    bad = tmp_path / "windows.txt"
    bad.write_text("8 8 24 24\n8 8 24\n")
    raises(clxcorr.FormatError, rf"^{bad}:2: expected 'x y w h'", lambda: clxcorr.read_windows(bad))
    raises(clxcorr.FileError, r"No such file or directory$", lambda: clxcorr.read_windows(tmp_path / "none.txt"))


# ---- options ----

@pytest.mark.parametrize("options, cls, message", [
    ({"passes": 17}, clxcorr.ArgumentError, r"^passes 17: from 1 to 16$"),
    ({"mode": "seed", "fit_size": 4}, clxcorr.ArgumentError, r"^fit size 4: it must be odd and at least 3$"),
    ({"mode": "fast"}, clxcorr.ArgumentError, r"^mode: unknown value 'fast' \(accurate, seed\)$"),
    ({"refine": "newton"}, clxcorr.ArgumentError, r"^refine: unknown refinement 'newton' \(icgn, correlation or none\)$"),
    ({"prefilter": "blur:3"}, clxcorr.ArgumentError, r"^filter spec 'blur:3': unknown filter 'blur'"),
    ({"fft": "cufft"}, clxcorr.ArgumentError, r"^parameter fft=cufft: expected clfft or vkfft or auto or cpu or local$"),
    ({"params": {"bogus": 1}}, clxcorr.ArgumentError, r"^unknown parameter 'bogus' \(known: "),
    ({"shape": 2}, clxcorr.ArgumentError, r"^shape function 2: 0 \(translation\) or 1 \(first order\)$"),
    ({"iterations": "many"}, clxcorr.ArgumentError, r"^iterations: expected an int, got 'many'$"),
    ({"refine": "none", "iterations": 3}, clxcorr.ArgumentError, r"^refine='none' does no iterations"),
    ({"speed": 11}, TypeError, r"^offsets\(\) got an unexpected keyword argument 'speed' \(options: "),
])
def test_bad_option(ctx, data, options, cls, message):
    reference, stack, windows = data
    raises(cls, message, lambda: ctx.offsets(reference, stack, windows, **options))


# ---- files ----

def test_missing_file(ctx, data, tmp_path):
    reference, _, windows = data
    e = raises(clxcorr.FileError, rf"^{tmp_path}/none.tif: No such file or directory$",
               lambda: ctx.offsets(reference, [tmp_path / "none.tif"], windows))
    assert isinstance(e, OSError) and e.status == "CLX_ERR_IO"


def test_corrupt_file(ctx, data, tmp_path):
    reference, _, windows = data
    (tmp_path / "bad.tif").write_bytes(b"II*\0" + b"\xff" * 64)
    raises(clxcorr.FormatError, rf"^{tmp_path}/bad.tif: ", lambda: ctx.offsets(reference, tmp_path / "bad.tif",
                                                                                 windows))
    (tmp_path / "notes.txt").write_text("not an image\n")
    raises(clxcorr.FormatError, rf"^{tmp_path}/notes.txt: unsupported image format",
           lambda: clxcorr.imread(tmp_path / "notes.txt"))


def test_page_that_does_not_exist(data, tmp_path):
    reference, stack, _ = data
    write_tiff(tmp_path / "two.tif", [stack[0], stack[1]])
    raises(clxcorr.ArgumentError, rf"^{tmp_path}/two.tif has 2 pages \(from 0\); page 5 does not exist$",
           lambda: clxcorr.imread(f"{tmp_path}/two.tif#5"))
    raises(clxcorr.ArgumentError, rf"^{tmp_path}/two.tif has 2 pages; name one as {tmp_path}/two.tif#N",
           lambda: clxcorr.imread(tmp_path / "two.tif"))


# ---- devices and contexts ----

def test_no_such_device():
    e = raises(clxcorr.NoDeviceError, r"^no OpenCL device matches 'no-such-device' \(see `clxcorr devices`\)$",
               lambda: clxcorr.Context(device="no-such-device"))
    assert e.status == "CLX_ERR_NO_DEVICE"


def test_no_double_precision(data, monkeypatch):
    """CLXCORR_TEST_HIDE_FP64 makes the library see a device without fp64."""
    reference, stack, windows = data
    monkeypatch.setenv("CLXCORR_TEST_HIDE_FP64", "1")
    raises(clxcorr.UnsupportedError, r"^no OpenCL device can run the job; .* it has no double precision",
           lambda: clxcorr.Context(double=True))
    with clxcorr.Context() as plain:
        raises(clxcorr.UnsupportedError, r"double precision",
               lambda: plain.offsets(reference, stack, windows, double=True))


def test_closed_context(data):
    reference, stack, windows = data
    context = clxcorr.Context()
    stream = context.offsets_stream(reference, stack, windows, batch=2)
    next(stream)
    context.close()
    raises(clxcorr.StateError, r"^the context was closed$", lambda: next(stream))
    raises(clxcorr.StateError, r"^the context was closed$", lambda: context.offsets(reference, stack, windows))
    context.close()     # twice: nothing


def test_device_error_mid_run(data, tmp_path):
    """A failing enqueue (the library's CLXCORR_FAULT_ENQUEUE, read once per
    process: a process of its own) raises the library's message after the
    batches before it were delivered."""
    reference, stack, windows = data
    np.save(tmp_path / "reference.npy", reference)
    np.save(tmp_path / "windows.npy", windows)
    script = textwrap.dedent(f"""
        import numpy as np, clxcorr
        reference = np.load({str(tmp_path / 'reference.npy')!r})
        windows = np.load({str(tmp_path / 'windows.npy')!r})
        delivered = []
        try:
            with clxcorr.Context() as ctx:
                for part in ctx.offsets_stream(reference, np.stack([reference] * 20), windows, batch=1,
                                               method="direct"):
                    delivered += sorted(set(part["image"].tolist()))
        except clxcorr.Error as e:
            print(type(e).__name__, e.status, delivered)
            print(e)
    """)
    env = dict(os.environ, CLXCORR_FAULT_ENQUEUE="120")
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    lines = out.stdout.splitlines()
    assert out.returncode == 0 and len(lines) == 2, out.stdout + out.stderr
    name, status, delivered = lines[0].split(" ", 2)
    assert name == "DeviceMemoryError" and status == "CLX_ERR_DEVICE_MEMORY"
    delivered = eval(delivered)  # noqa: S307 - the list printed above
    assert delivered == list(range(len(delivered))) and 0 < len(delivered) < 20
    assert "CL_OUT_OF_RESOURCES" in lines[1]
