"""The package's rows are the command's: `clxcorr offsets` on the sample set
(samples/clxcorr-samples) against ctx.offsets on the same files and on the
same images loaded as arrays, column by column, to the CSV's precision."""

import csv
import glob
import math
import os
import subprocess

import numpy as np
import pytest

import clxcorr

# How the CSV writes each column (src/cli/output/row_format.c): fixed
# decimals ("f", n) or significant digits ("g", n); the rest are integers.
PRINTED = {"x": ("f", 1), "y": ("f", 1), "dx": ("f", 6), "dy": ("f", 6), "peak": ("g", 9), "zncc": ("f", 6),
           "peak_ratio": ("g", 4), "znssd": ("g", 6), "sigma_dx": ("g", 4), "sigma_dy": ("g", 4),
           "dudx": ("g", 7), "dudy": ("g", 7), "dvdx": ("g", 7), "dvdy": ("g", 7),
           "exx": ("g", 7), "eyy": ("g", 7), "exy": ("g", 7)}


def run_cli(cli, args):
    out = subprocess.run([cli, "offsets"] + args, check=True, capture_output=True, text=True).stdout
    return list(csv.DictReader(out.splitlines()))


def assert_same_rows(rows, cli_rows, names):
    """Every row and column of the package's rows as the CSV printed it."""
    assert len(rows) == len(cli_rows)
    assert list(cli_rows[0].keys()) == list(rows.dtype.names)
    for row, printed in zip(rows, cli_rows):
        assert printed["image"] == names[row["image"]]
        for column in rows.dtype.names[1:]:
            value, text = row[column], printed[column]
            if column not in PRINTED:
                assert int(text) == value, (column, text, value)
                continue
            kind, digits = PRINTED[column]
            if math.isnan(value) or text == "nan":
                assert text == "nan" and math.isnan(value), (column, text, value)
                continue
            # Half a unit of the last printed digit, and a hair for the binary tie.
            unit = 10.0 ** -digits if kind == "f" else 10.0 ** (math.floor(math.log10(abs(value) or 1)) - digits + 1)
            assert abs(float(text) - value) <= 0.5 * unit * (1 + 1e-9) + 1e-12, (column, text, value)


@pytest.mark.parametrize("options, cli_args", [
    ({}, []),
    ({"mode": "seed"}, ["--mode", "seed"]),
])
def test_sample_set(ctx, cli, sample_set, options, cli_args):
    d = str(sample_set)
    paths = sorted(glob.glob(os.path.join(d, "image_*.tif")))
    cli_rows = run_cli(cli, cli_args + ["--regions", f"{d}/regions.txt", f"{d}/reference.tif"] + paths)
    windows = clxcorr.read_windows(f"{d}/regions.txt")
    assert len(windows) == 50

    from_files = ctx.offsets(f"{d}/reference.tif", paths, windows, **options)
    assert_same_rows(from_files, cli_rows, paths)
    reference = clxcorr.imread(f"{d}/reference.tif")
    from_arrays = ctx.offsets(reference, np.stack([clxcorr.imread(p) for p in paths]), windows, **options)
    np.testing.assert_array_equal(from_arrays, from_files)


@pytest.mark.parametrize("options, cli_args", [
    ({"shape": 1}, ["--shape", "1"]),
    ({"refine": "correlation", "window_fn": "tukey", "window_alpha": 0.5, "estimator": "gauss3"},
     ["--refine", "correlation", "--window-fn", "tukey:0.5", "--estimator", "gauss3"]),
    ({"mode": "seed", "double": True, "fit_size": 7, "method": "direct"},
     ["--mode", "seed", "--double", "--fit-size", "7", "--method", "direct"]),
])
def test_grid_and_options(ctx, cli, small_set, options, cli_args):
    """Windows from clxcorr.grid are the command's --grid, and options mean the same."""
    if options.get("double") and not ctx.device.fp64:
        pytest.skip("the device has no double precision")
    d = str(small_set)
    paths = sorted(glob.glob(os.path.join(d, "image_*.tif")))
    cli_rows = run_cli(cli, cli_args + ["--grid", "3x2", "--window", "32x32", "--margin", "8",
                                        f"{d}/reference.tif"] + paths)
    reference = clxcorr.imread(f"{d}/reference.tif")
    windows = clxcorr.grid(reference, count=(3, 2), size=(32, 32), margin=8)
    np.testing.assert_array_equal(windows, clxcorr.read_windows(f"{d}/regions.txt"))
    assert_same_rows(ctx.offsets(reference, paths, windows, **options), cli_rows, paths)
