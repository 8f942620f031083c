"""clxcorr.gnd against the command pipeline: `clxcorr strain ... -o s.csv &&
clxcorr gnd s.csv` and clxcorr.gnd(clxcorr.strain(...)) on the same scans
(tests/data/hrebsd: the bent lattice with the steps from its file, the two
grains with densities), to the digits the command prints; and clxcorr.gnd
on the command's own strain rows (a point left out), where the two
computations are one (clx_gnd_map) and agree to the printed digits alone."""

import csv
import io
import os
import subprocess

import numpy as np
import pytest

import clxcorr

from conftest import TREE

DATA = os.path.join(TREE, "tests", "data", "hrebsd")
COMPONENTS = ("alpha12", "alpha13", "alpha21", "alpha23", "alpha33")
# The command's printed precision: 7 significant digits for alpha, 5 for rho.
PRINTED = {**{c: 5.001e-7 for c in COMPONENTS}, "rho_gnd": 5.001e-5}


@pytest.fixture(scope="module", autouse=True)
def hdf5():
    if "hdf5" not in clxcorr.library_features:
        pytest.skip("the library is built without HDF5 (the fixtures are h5ebsd files)")


def run(cli, *args):
    return subprocess.run([cli, *args], check=True, capture_output=True, text=True).stdout


def pipeline(cli, tmp_path, strain_args, gnd_args=()):
    """The command's strain rows (as read back) and its gnd rows."""
    rows = tmp_path / "s.csv"
    run(cli, "strain", "-q", "-o", str(rows), *strain_args)
    return rows, list(csv.DictReader(io.StringIO(run(cli, "gnd", *gnd_args, str(rows)))))


def assert_same(rows, result, extra=None):
    """Each command row against the result at its point; every other point nan.
    extra(column, point): an absolute tolerance beyond the printed digits."""
    assert rows
    seen = np.zeros(result["alpha12"].shape, bool)
    for row in rows:
        point = int(row["scan_row"]), int(row["scan_col"])
        seen[point] = True
        for column, rtol in PRINTED.items():
            if column not in row:
                continue
            want, got = float(row[column]), result[column][point]
            if np.isnan(want):
                assert np.isnan(got), (column, point, got)
                continue
            atol = extra(column, point) if extra else 0
            assert abs(got - want) <= rtol * abs(want) + atol, (column, point, got, want)
    for column in result:
        assert np.isnan(result[column][~seen]).all(), column


def rotation_rounding(strain, step):
    """How far alpha may move when w1..w3 are rounded to the 7 digits strain
    prints: a difference of two rounded rotations over the smaller step."""
    w = np.nanmax(np.abs([strain["w1"], strain["w2"], strain["w3"]]))
    return lambda column, point: (2 * 5e-7 * w / min(step) if column in COMPONENTS else 0)


def test_bent_lattice_against_command(ctx, cli, tmp_path):
    scan = os.path.join(DATA, "bent.h5")
    args = ["--grid", "7x5", "--window", "48x48", "--margin", "12", "--remap", f"{scan}#1,2", scan]
    _, rows = pipeline(cli, tmp_path, args)
    windows = clxcorr.grid(clxcorr.imread(f"{scan}#1,2"), (7, 5), (48, 48), margin=12)
    strain = clxcorr.strain(f"{scan}#1,2", scan, windows, context=ctx, remap=True)
    assert strain["scan_x"][0, 1] == 60 and strain["scan_y"][1, 0] == 60     # the file's steps
    result = clxcorr.gnd(strain)
    assert sorted(result) == sorted(COMPONENTS) and result["alpha12"].shape == (3, 5)
    assert_same(rows, result, rotation_rounding(strain, (60, 60)))
    # The steps given match the file's; other steps scale the components.
    given = clxcorr.gnd(strain, step=(60, 60))
    for c in COMPONENTS:
        np.testing.assert_array_equal(given[c], result[c])
    halved = clxcorr.gnd(strain, step=(30, 30))
    np.testing.assert_allclose(halved["alpha12"], 2 * result["alpha12"], rtol=1e-12)


def test_grains_against_command(ctx, cli, tmp_path):
    scan, ang = os.path.join(DATA, "grains.h5"), os.path.join(DATA, "grains.ang")
    args = ["--grains", "auto", "--orientations", ang, "--min-grain", "2", "--grid", "7x5", "--window", "48x48",
            "--margin", "16", scan]
    _, rows = pipeline(cli, tmp_path, args, ["--burgers", "0.249"])
    windows = clxcorr.grid((300, 400), (7, 5), (48, 48), margin=16)
    strain = clxcorr.strain(None, scan, windows, context=ctx, grains="auto", orientations=ang, min_grain=2)
    result = clxcorr.gnd(strain, burgers=0.249)
    assert sorted(result) == sorted(COMPONENTS + ("rho_gnd",))
    rounding = rotation_rounding(strain, (60, 60))
    # rho is linear in alpha: its share of the rounding is alpha's, relative.
    scale = max(np.nanmax(np.abs(result[c])) for c in COMPONENTS)
    assert_same(rows, result, lambda column, point: rounding("alpha12", point) * (
        1 if column in COMPONENTS else 10 * result["rho_gnd"][point] / scale))
    assert (result["rho_gnd"] > 0).all()
    bcc = clxcorr.gnd(strain, burgers=0.498, lattice="bcc")
    for c in COMPONENTS:
        np.testing.assert_array_equal(bcc[c], result[c])


def read_rows(path, shape, drop=None):
    """strain's rows laid on the scan, as gnd lays them (the point `drop` left out)."""
    columns = ("w1", "w2", "w3", "phi1", "Phi", "phi2", "scan_x", "scan_y")
    laid = {c: np.full(shape, np.nan) for c in columns}
    laid["grain"] = np.zeros(shape, np.int64)
    kept = []
    with open(path, newline="") as f:
        header = f.readline()
        kept.append(header)
        for line in f:
            row = dict(zip(header.strip().split(","), line.strip().split(",")))
            point = int(row["scan_row"]), int(row["scan_col"])
            if point == drop:
                continue
            kept.append(line)
            for c in laid:
                laid[c][point] = float(row[c])
    return laid, "".join(kept)


def test_command_rows(ctx, cli, tmp_path):
    """The command's strain rows (point 1,1 left out) through both: the same
    numbers to the printed digits, the same nan."""
    scan, ang = os.path.join(DATA, "grains.h5"), os.path.join(DATA, "grains.ang")
    rows_file = tmp_path / "s.csv"
    run(cli, "strain", "-q", "--grains", "auto", "--orientations", ang, "--min-grain", "2", "--grid", "7x5",
        "--window", "48x48", "--margin", "16", "-o", str(rows_file), scan)
    laid, kept = read_rows(rows_file, (3, 4), drop=(1, 1))
    holed = tmp_path / "holed.csv"
    holed.write_text(kept)
    for args, kwargs in (([], {}), (["--burgers", "0.3", "--lattice", "bcc"], dict(burgers=0.3, lattice="bcc")),
                         (["--step", "20,45"], dict(step=(20, 45)))):
        rows = list(csv.DictReader(io.StringIO(run(cli, "gnd", *args, str(holed)))))
        result = clxcorr.gnd(laid, **kwargs)
        assert_same(rows, result)
        assert np.isnan(result["alpha12"][1, 1])
    # Without grains, all one grain; a float grain's nan is grain 1, as the command reads it.
    no_grain = {k: v for k, v in laid.items() if k != "grain"}
    ones = dict(laid, grain=np.where(laid["grain"] > 0, np.nan, 0.0))
    for c in COMPONENTS:
        np.testing.assert_array_equal(clxcorr.gnd(no_grain)[c], clxcorr.gnd(dict(laid, grain=np.ones((3, 4))))[c])
        np.testing.assert_array_equal(clxcorr.gnd(ones)[c], clxcorr.gnd(no_grain)[c])


def test_refusals():
    w = np.zeros((2, 3))
    strain = {"w1": w, "w2": w, "w3": w}
    with pytest.raises(clxcorr.ArgumentError, match="step="):
        clxcorr.gnd(strain)
    with pytest.raises(clxcorr.ArgumentError, match="orientations"):
        clxcorr.gnd(strain, step=(1, 1), burgers=0.249)
    with pytest.raises(clxcorr.ArgumentError, match="fcc or bcc"):
        clxcorr.gnd(strain, step=(1, 1), lattice="hcp")
    with pytest.raises(clxcorr.ArgumentError, match="step"):
        clxcorr.gnd(strain, step=(0, 1))
    with pytest.raises(clxcorr.ArgumentError, match="burgers"):
        clxcorr.gnd(strain, step=(1, 1), burgers=-1)
    with pytest.raises(clxcorr.ArgumentError, match="no w3"):
        clxcorr.gnd({"w1": w, "w2": w}, step=(1, 1))
    with pytest.raises(clxcorr.ArgumentError, match="2-D|one"):
        clxcorr.gnd({"w1": w.ravel(), "w2": w.ravel(), "w3": w.ravel()}, step=(1, 1))
    with pytest.raises(clxcorr.ArgumentError, match="grain"):
        clxcorr.gnd(dict(strain, grain=np.ones((3, 2), int)), step=(1, 1))
    with pytest.raises(clxcorr.ArgumentError, match="no scan steps"):
        clxcorr.gnd(dict(strain, scan_x=np.zeros((2, 3)), scan_y=np.zeros((2, 3))))
    # A map of zero rotations: no curvature.
    result = clxcorr.gnd(strain, step=(1, 1))
    assert all((result[c] == 0).all() for c in COMPONENTS)
