#!/bin/sh
# offsets --format vtk and --format openpiv: one file per image (OUT.EXT for
# one image, OUT_0001.EXT ... for several), holding the CSV's values in the
# formats' conventions; read back by meshio (VTK) and numpy.loadtxt, and
# compared with openpiv.tools.save's own text of the same field (find_python
# looks for an interpreter with those modules: $PYTHON, python3, then
# /usr/bin/python3; .ci/run installs meshio and openpiv; where none has
# them, each check is a counted SKIP). Refusals: vtk for windows off a grid,
# no -o, --resume, --columns with openpiv.
. "$TESTS_SRCDIR/lib.sh"
need_device
"$CLXCORR_SAMPLES" --out "$TMP/set" --kind speckle --size 160x128 --count 3 --step 0.6 --gradient 0.01,0,0,-0.01 \
    --grid 3x2 --window 32x32 --margin 8 || exit 99
S=$TMP/set
# A mask of the left 48 columns: the first two columns of windows are left out.
{
    printf 'P5\n160 128\n255\n'
    for _ in $(seq 128); do head -c 48 /dev/zero; head -c 112 /dev/zero | tr '\0' '\377'; done
} >"$TMP/mask.pgm"
run() {
    "$CLXCORR" offsets --method fft --grid-step 16 --window 32x32 --margin 8 --mask "$TMP/mask.pgm" "$@"
}
run -o "$TMP/rows.csv" "$S/reference.tif" "$S"/image_*.tif || fail "csv"
run --format vtk -o "$TMP/f.vtk" "$S/reference.tif" "$S"/image_*.tif || fail "--format vtk"
run --format openpiv -o "$TMP/p.txt" "$S/reference.tif" "$S"/image_*.tif || fail "--format openpiv"
run --format vtk -o "$TMP/one.vtk" "$S/reference.tif" "$S/image_0002.tif" || fail "--format vtk, one image"
ls "$TMP" | grep -E '^(f|p|one)[._]' | tr '\n' ' ' >"$TMP/files"
[ "$(cat "$TMP/files")" = "f_0001.vtk f_0002.vtk f_0003.vtk one.vtk p_0001.txt p_0002.txt p_0003.txt " ] \
    && pass "files: $(cat "$TMP/files")" || fail "files: $(cat "$TMP/files")"
head -c 400 "$TMP/f_0002.vtk" | head -5 | tr '\n' '|' >"$TMP/head"
[ "$(cat "$TMP/head")" = "# vtk DataFile Version 3.0|clxcorr offsets: $S/image_0002.tif|BINARY|DATASET STRUCTURED_GRID|DIMENSIONS 8 6 1|" ] \
    && pass "vtk header: legacy 3.0, binary, a structured grid of 8 x 6" || fail "vtk header: $(cat "$TMP/head")"
head -1 "$TMP/p_0001.txt" | grep -q "^# x	y	u	v	flags	mask$" && [ "$(wc -l <"$TMP/p_0001.txt")" -eq 49 ] \
    && pass "openpiv: its header and 48 lines" || fail "openpiv: $(head -2 "$TMP/p_0001.txt")"

# image K's rows of the CSV, as numpy arrays, for the checks below.
cat >"$TMP/rows.py" <<'PY'
import csv, sys
import numpy as np
def rows(path, k):
    with open(path) as f:
        r = [row for row in csv.DictReader(f) if row["image"].endswith("image_%04d.tif" % k)]
    return {key: np.array([float(row[key]) for row in r]) for key in r[0] if key != "image"}
PY
if ! find_python numpy; then
    skip_check "openpiv: the values read back by numpy.loadtxt" "$PY_MISSING"
else
    "$PY" - "$TMP" <<'PY' && pass "openpiv: x, y flipped (y_min + y_max - y), u = dx, v = -dy, flags, mask 1 and u = v = 0 where masked" || fail "openpiv values"
import sys; sys.path.insert(0, sys.argv[1]); from rows import rows
import numpy as np
t = sys.argv[1]
for k in (1, 2, 3):
    c = rows(t + "/rows.csv", k); a = np.loadtxt("%s/p_%04d.txt" % (t, k))
    masked = (c["flags"].astype(int) & 128) != 0
    want_y = c["y"].min() + c["y"].max() - c["y"]
    u = np.where(masked, 0.0, c["dx"]); v = np.where(masked, 0.0, -c["dy"])
    ok = (np.allclose(a[:, 0], c["x"]) and np.allclose(a[:, 1], want_y) and np.allclose(a[:, 2], u, atol=2e-6)
          and np.allclose(a[:, 3], v, atol=2e-6) and (a[:, 5] == masked).all() and masked.sum() == 12
          and (a[:, 4] == ((c["flags"].astype(int) & ~128) != 0)).all())
    if not ok:
        sys.exit("image %d: %s" % (k, a[:3]))
PY
fi
if find_python numpy openpiv.tools; then
    "$PY" - "$TMP" <<'PY' && pass "openpiv: the text of openpiv.tools.save for the same field (fmt %.6e)" || fail "openpiv.tools.save writes another text"
import sys; sys.path.insert(0, sys.argv[1]); from rows import rows
import numpy as np, openpiv.tools as tools
t = sys.argv[1]
c = rows(t + "/rows.csv", 2); a = np.loadtxt(t + "/p_0002.txt")
# x, y, u, v, flags, mask as clxcorr wrote them, saved by OpenPIV.
tools.save(t + "/openpiv.txt", a[:, 0], a[:, 1], a[:, 2], a[:, 3], a[:, 4].astype(int), a[:, 5].astype(int), fmt="%.6e")
sys.exit(open(t + "/openpiv.txt").read() != open(t + "/p_0002.txt").read())
PY
else
    skip_check "openpiv: the text of openpiv.tools.save" "$PY_MISSING (pip install openpiv)"
fi
if find_python numpy meshio; then
    "$PY" - "$TMP" <<'PY' && pass "vtk (meshio): points, displacement (nan where masked) and every scalar as the CSV's" || fail "vtk values"
import sys; sys.path.insert(0, sys.argv[1]); from rows import rows
import numpy as np, meshio
t = sys.argv[1]
for k, path in ((1, "f_0001.vtk"), (3, "f_0003.vtk"), (2, "one.vtk")):
    c = rows(t + "/rows.csv", k); m = meshio.read(t + "/" + path)
    d = m.point_data["displacement"]
    close = lambda a, b, tol: np.allclose(a, b, atol=tol, equal_nan=True)
    ok = (close(m.points[:, 0], c["x"], 0) and close(m.points[:, 1], c["y"], 0) and (m.points[:, 2] == 0).all()
          and close(d[:, 0], c["dx"], 6e-7) and close(d[:, 1], c["dy"], 6e-7) and np.isnan(d[:, 0]).sum() == 12)
    for key in c:
        if key not in ("x", "y", "dx", "dy"):
            got = m.point_data[key].ravel()
            # The CSV's precision: 4 significant digits at the least, 6 decimals.
            if not np.allclose(got, c[key], rtol=1e-3, atol=6e-7, equal_nan=True):
                sys.exit("%s: %s %s vs %s" % (path, key, got[:4], c[key][:4]))
    if not ok:
        sys.exit("%s differs" % path)
PY
else
    skip_check "vtk: the files read back by meshio" "$PY_MISSING (pip install meshio)"
fi

printf '10 10 32 32\n50 12 32 32\n90 30 32 32\n' >"$TMP/loose.txt"
expect_failure "vtk for windows off a grid" 1 "--format vtk writes windows on a full grid" \
    "$CLXCORR" offsets --regions "$TMP/loose.txt" --format vtk -o "$TMP/loose.vtk" "$S/reference.tif" "$S/image_0001.tif"
ls "$TMP"/loose*.vtk* >/dev/null 2>&1 && fail "vtk off a grid left a file" || pass "vtk off a grid: no file written"
expect_failure "vtk without -o" 2 "--format vtk writes a file per image" run --format vtk "$S/reference.tif" \
    "$S/image_0001.tif"
expect_failure "openpiv with --resume" 2 "--format openpiv writes whole files per image" run --format openpiv \
    --resume -o "$TMP/r.txt" "$S/reference.tif" "$S/image_0001.tif"
expect_failure "openpiv with --columns" 2 "--format openpiv has fixed columns" run --format openpiv --columns dx \
    -o "$TMP/c.txt" "$S/reference.tif" "$S/image_0001.tif"
finish
