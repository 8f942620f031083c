"""EBSD pattern files as inputs (the committed fixtures of tests/data/ebsd):
a file is its patterns in scan order, NAME#N and NAME#ROW,COL one of them,
and a file of several scans needs scan=."""

import os

import numpy as np
import pytest

import clxcorr

EBSD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data", "ebsd")


def fixture(name, needs_hdf5=False):
    path = os.path.join(EBSD, name)
    if not os.path.exists(path):
        pytest.skip(f"{path} not found (the clxcorr source tree's fixtures)")
    if needs_hdf5 and "hdf5" not in clxcorr.library_features.split():
        pytest.skip("libclxcorr was built without HDF5")
    return path


@pytest.mark.parametrize("name, needs_hdf5", [("patterns.h5", True), ("patterns.up2", False)])
def test_pattern_file(ctx, name, needs_hdf5):
    path = fixture(name, needs_hdf5)
    scan = clxcorr.scan_info(path)
    assert (scan["rows"], scan["cols"]) == (2, 3)
    patterns = np.stack([clxcorr.imread(f"{path}#{i}") for i in range(6)])
    windows = clxcorr.grid(patterns, count=(2, 2), size=(24, 24), margin=8)
    rows = ctx.offsets(f"{path}#0,0", path, windows)
    assert len(rows) == 6 * 4
    np.testing.assert_array_equal(rows, ctx.offsets(patterns[0], patterns, windows))
    # Scan point (1, 2) is pattern 1 * 3 + 2.
    np.testing.assert_array_equal(clxcorr.imread(f"{path}#1,2"), patterns[5])


def test_file_of_several_scans(ctx):
    path = fixture("two_scans.h5", needs_hdf5=True)
    with pytest.raises(clxcorr.ArgumentError, match=r"holds 2 scans \('Scan 1' and 'Scan 2'\)"):
        clxcorr.imread(f"{path}#0")
    second = clxcorr.imread(f"{path}#0", scan="Scan 2")
    windows = clxcorr.grid(second, count=(2, 2), size=(24, 24), margin=8)
    rows = ctx.offsets(f"{path}#0", path, windows, scan="Scan 2")
    assert len(rows) == 6 * 4 and (rows["image"][rows["region"] == 0] == np.arange(6)).all()
