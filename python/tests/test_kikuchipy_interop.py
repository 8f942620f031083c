"""kikuchipy interop and long jobs: clxcorr.strain on an EBSD signal (eager
and lazy) against the same call on its array with the geometry given
explicitly, and against the command's rows on the h5ebsd file kikuchipy
wrote (tests/data/hrebsd, make_fixtures.py); orix orientations out;
progress (a callable, tqdm) and Ctrl-C, which stops the run within a
second and raises with the rows delivered so far.

Skipped, saying why, without kikuchipy (pip install kikuchipy), or a
library built without HDF5 for the file's tests."""

import os
import signal
import threading
import time

import numpy as np
import pytest

import clxcorr

from conftest import TREE, speckle
from test_strain import assert_same, command_rows

try:
    import kikuchipy as kp
    import dask.array as da
except ImportError as e:            # loudly: the reason is in the summary
    pytest.skip(f"kikuchipy interop: kikuchipy (and dask) not importable ({e}); pip install kikuchipy",
                allow_module_level=True)

DATA = os.path.join(TREE, "tests", "data", "hrebsd")
TILT = 10
WINDOWS_ARGS = ["--grid", "7x5", "--window", "64x64", "--margin", "16"]
COLUMNS = ("e11", "e12", "e13", "e22", "e23", "e33", "w1", "w2", "w3", "residual", "windows", "flags", "phi1", "Phi",
           "phi2")


def need_hdf5():
    if "hdf5" not in clxcorr.library_features:
        pytest.skip("the library is built without HDF5")


@pytest.fixture(scope="module")
def scan_file():
    need_hdf5()
    return os.path.join(DATA, f"tilt_{TILT}.h5")


@pytest.fixture(scope="module")
def windows():
    return clxcorr.grid((360, 480), (7, 5), (64, 64), margin=16)


@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
def test_signal_against_command(ctx, cli, scan_file, windows, lazy):
    """The signal's data, detector and scan give the command's rows on the
    file kikuchipy wrote (its per-point centres are kikuchipy's beam-shift
    model, which the signal's pixel size and steps reproduce)."""
    s = kp.load(scan_file, lazy=lazy)
    result = clxcorr.strain((0, 0), s, windows, context=ctx)
    assert result["e11"].shape == (2, 3)
    rows = command_rows(cli, WINDOWS_ARGS + [scan_file + "#0,0", scan_file])
    assert_same(rows, result, [(int(r["scan_row"]), int(r["scan_col"])) for r in rows])


def test_signal_against_array_with_geometry(ctx, scan_file, windows):
    """The same as the array with the signal's geometry spelled out."""
    s = kp.load(scan_file, lazy=True)
    det = s.detector
    euler = np.degrees(s.xmap.rotations.to_euler()[0])
    result = clxcorr.strain(0, s, windows, context=ctx)
    explicit = clxcorr.strain(0, np.asarray(s.data), windows, context=ctx, pc=det.pc[0, 0], sample_tilt=70,
                              detector_tilt=TILT, pixel_size=25.0, step=(60.0, 60.0), scan_cols=3, ref_point=(0, 0),
                              euler=euler)
    for c in COLUMNS:
        np.testing.assert_allclose(result[c], explicit[c], rtol=1e-12, atol=1e-15, err_msg=c)


def test_options_given_win(ctx, scan_file, windows):
    s = kp.load(scan_file)
    fixed = clxcorr.strain(0, s, windows, context=ctx, pattern_centres="fixed", detector_tilt=TILT - 1)
    explicit = clxcorr.strain(0, np.asarray(s.data), windows, context=ctx, pc=s.detector.pc[0, 0], sample_tilt=70,
                              detector_tilt=TILT - 1, scan_cols=3, ref_point=(0, 0),
                              euler=np.degrees(s.xmap.rotations.to_euler()[0]))
    for c in COLUMNS:
        np.testing.assert_allclose(fixed[c], explicit[c], rtol=1e-12, atol=1e-15, err_msg=c)


def test_orix_orientations(ctx, scan_file, windows):
    orix = pytest.importorskip("orix", reason="orix is not installed")
    s = kp.load(scan_file, lazy=True)
    result = clxcorr.strain(0, s, windows, context=ctx)
    o = result["orientation"]
    assert isinstance(o, orix.quaternion.Orientation)
    assert o.shape == (2, 3)
    assert o.symmetry.name == "m-3m"
    # The refined orientation at the reference is the crystal map's there.
    here = orix.quaternion.Rotation(o.data[0, 0])
    assert here.angle_with(s.xmap.rotations[0], degrees=True)[0] < 1e-6
    back = clxcorr._kikuchipy.orientations(result["phi1"], result["Phi"], result["phi2"])
    np.testing.assert_allclose(back.data, o.data, atol=1e-12)


def test_progress_callback(ctx, scan_file, windows):
    calls = []
    clxcorr.strain(0, kp.load(scan_file, lazy=True), windows, context=ctx,
                   progress=lambda done, total: calls.append((done, total)))
    assert calls and calls[-1] == (6, 6)
    assert all(t == 6 for _, t in calls)
    assert [d for d, _ in calls] == sorted(set(d for d, _ in calls))


def test_progress_tqdm(ctx, scan_file, windows, capsys):
    result = clxcorr.strain(0, kp.load(scan_file, lazy=True), windows, context=ctx, progress=True)
    assert np.isfinite(result["e11"]).all()
    try:
        import tqdm  # noqa: F401
    except ImportError:
        return
    assert "6/6" in capsys.readouterr().err


# ---- long jobs: a lazy signal of many small patterns, read slowly ------------------------------------------------

N, SIZE, CHUNK = 20000, 60, 200


@pytest.fixture(scope="module")
def slow_signal():
    """A lazy signal of N patterns of 60 x 60 (one texture, a little noise
    per chunk), each chunk of CHUNK patterns taking 20 ms to read: a run of
    several seconds at any speed."""
    base = np.round(1000 + 3000 * speckle(SIZE, SIZE, seed=5)).astype(np.uint16)

    def block(b, block_info=None):
        time.sleep(0.02)
        first = block_info[None]["array-location"][0][0] if block_info else 0
        rng = np.random.default_rng(first)
        return (b + rng.integers(0, 3, size=b.shape)).astype(np.uint16)

    data = da.from_array(np.broadcast_to(base, (N, SIZE, SIZE)), chunks=(CHUNK, SIZE, SIZE))
    data = data.map_blocks(block, dtype=np.uint16).reshape(100, N // 100, SIZE, SIZE)
    s = kp.signals.LazyEBSD(data)
    s.detector = kp.detectors.EBSDDetector(shape=(SIZE, SIZE), pc=(0.5, 0.45, 0.6), sample_tilt=70, tilt=0)
    return s


@pytest.fixture(scope="module")
def small_windows():
    return clxcorr.grid((SIZE, SIZE), (3, 3), (16, 16), margin=4)


def _no_run_threads():
    return not any(t.name.startswith(("clxcorr-run", "clxcorr-read")) and t.is_alive() for t in threading.enumerate())


def test_progress_raising_stops(ctx, slow_signal, small_windows):
    """An exception from the progress callable (KeyboardInterrupt after 300
    patterns) stops the run within a second, propagates, and carries the
    rows delivered before it."""
    raised = []

    def progress(done, total):
        if done >= 300:
            raised.append(time.monotonic())
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt) as info:
        clxcorr.strain(0, slow_signal, small_windows, context=ctx, progress=progress)
    assert time.monotonic() - raised[0] < 1.0
    partial = info.value.results
    assert partial["e11"].shape == (100, N // 100)
    measured = np.isfinite(partial["e11"]).sum()
    assert 300 <= measured < N
    # In scan order: the first `measured` points, none after.
    assert np.isfinite(partial["e11"].ravel()[:measured]).all()
    assert (partial["windows"].ravel()[measured:] == -1).all()
    assert _no_run_threads()


def test_ctrl_c_stops(ctx, slow_signal, small_windows):
    """SIGINT (Ctrl-C) in the middle of a run: KeyboardInterrupt within a
    second, the stream stopped, the context usable afterwards."""
    sent = []

    def interrupt():
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)
    timer = threading.Timer(1.0, interrupt)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt) as info:
            clxcorr.strain(0, slow_signal, small_windows, context=ctx)
    finally:
        timer.cancel()
    assert sent and time.monotonic() - sent[0] < 1.0
    measured = np.isfinite(info.value.results["e11"]).sum()
    assert 0 < measured < N
    assert _no_run_threads()
    again = clxcorr.strain(0, slow_signal.inav[:2, :1], small_windows, context=ctx)
    assert np.isfinite(again["e11"]).all()


def test_offsets_of_signal(ctx, scan_file):
    """Context.offsets takes a signal, lazy (read band by band) or not: the file's rows."""
    windows = clxcorr.grid((360, 480), (3, 3), (64, 64), margin=16)
    want = ctx.offsets(scan_file + "#0,0", scan_file, windows)
    for lazy in (False, True):
        s = kp.load(scan_file, lazy=lazy)
        got = ctx.offsets(scan_file + "#0,0", s, windows)
        assert len(got) == len(want) == 6 * 9
        for c in ("image", "region", "dx", "dy", "flags"):
            np.testing.assert_array_equal(got[c], want[c], err_msg=c)
