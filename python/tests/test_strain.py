"""clxcorr.strain against the command's rows: the same job (clx_strain_job),
so the same numbers, to the digits the command prints (7 significant for
strains and rotations, 4 decimals for the residual, 9 for the refined
orientation): a scan of synthetic Kikuchi patterns as an array, plain and
remapped, and a two-grain h5ebsd file with a reference per grain."""

import csv
import io
import os
import subprocess

import numpy as np
import pytest

import clxcorr

from conftest import TREE, tool

GEOMETRY = dict(pc=(0.5, 0.35, 0.65), sample_tilt=70, detector_tilt=10)
GEOMETRY_ARGS = ["--pc", "0.5,0.35,0.65", "--sample-tilt", "70", "--detector-tilt", "10"]
# The command's printed precision, per column: (relative, absolute).
PRECISION = {"residual": (0, 5.001e-5), "phi1": (0, 5.001e-10), "Phi": (0, 5.001e-10), "phi2": (0, 5.001e-10)}
INTEGERS = ("windows", "flags", "grain", "ref_row", "ref_col")


@pytest.fixture(scope="module")
def rotated(tmp_path_factory):
    """Two patterns of 300 x 300 turned by 3 degrees (clxcorr-samples --kikuchi)."""
    samples = tool("CLXCORR_SAMPLES", "clxcorr-samples", "samples/clxcorr-samples")
    out = tmp_path_factory.mktemp("kikuchi")
    subprocess.run([samples, "--kikuchi", "--out", str(out), "--count", "2", "--rotation", "3", "--seed", "11"],
                   check=True, capture_output=True)
    return out


def command_rows(cli, args):
    out = subprocess.run([cli, "strain", "-q"] + args, check=True, capture_output=True, text=True).stdout
    return list(csv.DictReader(io.StringIO(out)))


def assert_same(rows, result, at):
    """Each command row against the result at its point, column by column."""
    assert rows
    for row, point in zip(rows, at):
        for column, text in row.items():
            if column not in result or column in ("image", "scan_row", "scan_col"):
                continue    # where the row lies: `at`
            got = result[column][point]
            if column in INTEGERS:
                assert got == int(text), (column, point)
                continue
            rtol, atol = PRECISION.get(column, (5.001e-7, 1e-300))
            want = float(text)
            assert abs(got - want) <= rtol * abs(want) + atol, (column, point, got, want)


@pytest.mark.parametrize("remap", [False, True], ids=["plain", "remap"])
def test_array_against_command(ctx, cli, rotated, remap):
    reference = clxcorr.imread(rotated / "reference.tif")
    patterns = np.stack([clxcorr.imread(rotated / f"image_000{i}.tif") for i in (1, 2)])
    windows = clxcorr.read_windows(rotated / "regions.txt")
    result = ctx.strain(reference, patterns, windows, remap=remap, **GEOMETRY)
    assert result["e11"].shape == (2,)
    assert set(result) >= {"e11", "e12", "e13", "e22", "e23", "e33", "w1", "w2", "w3", "residual", "windows",
                           "flags"}
    args = GEOMETRY_ARGS + ["--regions", str(rotated / "regions.txt")] + (["--remap"] if remap else [])
    rows = command_rows(cli, args + [str(rotated / "reference.tif")] +
                        [str(rotated / f"image_000{i}.tif") for i in (1, 2)])
    assert_same(rows, result, [0, 1])


def test_grains_against_command(ctx, cli):
    if "hdf5" not in clxcorr.library_features:
        pytest.skip("the library is built without HDF5")
    data = os.path.join(TREE, "tests", "data", "hrebsd")
    scan, ang = os.path.join(data, "grains.h5"), os.path.join(data, "grains.ang")
    windows = clxcorr.grid((300, 400), (7, 5), (48, 48), margin=16)
    result = clxcorr.strain(None, scan, windows, context=ctx, grains="auto", orientations=ang, min_grain=2)
    assert result["e11"].shape == (3, 4)
    assert result["grain"].tolist() == [[1, 1, 2, 2]] * 3
    rows = command_rows(cli, ["--grains", "auto", "--orientations", ang, "--min-grain", "2", "--grid", "7x5",
                              "--window", "48x48", "--margin", "16", scan])
    assert_same(rows, result, [(int(r["scan_row"]), int(r["scan_col"])) for r in rows])


def test_missing_geometry(ctx, rotated):
    reference = clxcorr.imread(rotated / "reference.tif")
    windows = clxcorr.read_windows(rotated / "regions.txt")
    with pytest.raises(clxcorr.ArgumentError, match="--pc"):
        ctx.strain(reference, reference[None], windows, sample_tilt=70, detector_tilt=10)
