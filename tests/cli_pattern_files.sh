#!/bin/sh
# offsets over EBSD pattern files (tests/data/ebsd, written by kikuchipy,
# PyEBSDIndex and h5py from the set this test makes again): the offsets of
# a pattern file are byte for byte those of the same patterns as TIFFs;
# FILE#ROW,COL and FILE#N name one pattern; --scan chooses a file's scan;
# the rows of a scan name its points; gzip-compressed chunks give the same
# rows; --explain and --meta give the scan's geometry; --format h5 holds the
# CSV's values, as h5py reads them; wrong names get one line that says what
# is there; float patterns with a NaN are refused, and patterns of another
# type are named by it.
. "$TESTS_SRCDIR/lib.sh"
need_device
need_hdf5 "the pattern files are HDF5 containers"
D=$TESTS_SRCDIR/data/ebsd
S=$TMP/set
# The fixtures' patterns (make_fixtures.py): image_0001 .. image_0006 are the scan's 2 rows x 3 columns.
"$CLXCORR_SAMPLES" --out "$S" --size 96x80 --count 6 --grid 3x2 --window 24x24 --margin 8 --max-shift 2 \
    >/dev/null || exit 99
run() {
    "$CLXCORR" offsets --regions "$S/regions.txt" "$@"
}
# Everything but the image's name.
VALUES=region,x,y,dx,dy,peak,flags,zncc,peak_ratio,iterations,znssd,sigma_dx,sigma_dy,dudx,dudy,dvdx,dvdy,exx,eyy,exy

run --columns "$VALUES" "$S/reference.tif" "$S"/image_000[1-6].tif >"$TMP/tiff.csv" || fail "offsets of the TIFFs"
for f in patterns.h5 patterns.up2; do
    if [ ! -f "$D/$f" ]; then
        fail "$D/$f is missing"
        continue
    fi
    run --columns "$VALUES" "$S/reference.tif" "$D/$f" >"$TMP/$f.csv" 2>"$TMP/err" || fail "$f: $(cat "$TMP/err")"
    cmp -s "$TMP/tiff.csv" "$TMP/$f.csv" && [ "$(wc -l <"$TMP/tiff.csv")" -eq 37 ] \
        && pass "$f: 36 rows byte for byte those of the TIFFs" || fail "$f: rows differ from the TIFFs'"
done

# A scan's rows name its points: scan_row, scan_col and the position in µm, in place of the image.
run "$S/reference.tif" "$D/patterns.h5" >"$TMP/scan.csv" || fail "default columns over a scan"
head -1 "$TMP/scan.csv" | grep -qx "scan_row,scan_col,scan_x,scan_y,$VALUES" \
    && pass "scan columns: $(head -1 "$TMP/scan.csv" | cut -c1-40)..." || fail "header: $(head -1 "$TMP/scan.csv")"
# The 6th pattern (row 1, column 2) lies at x = 2 * 1.5 µm, y = 1 * 2.0 µm.
sed -n 32p "$TMP/scan.csv" | grep -q '^1,2,3.0000,2.0000,0,' \
    && pass "pattern 6 is scan point 1,2 at (3.0, 2.0) um" || fail "row 31: $(sed -n 32p "$TMP/scan.csv")"
cut -d, -f5- "$TMP/scan.csv" | tail -n +2 | cmp -s - "$(tail -n +2 "$TMP/tiff.csv" >"$TMP/tv" && echo "$TMP/tv")" \
    && pass "the scan's values are the TIFFs'" || fail "the scan's values differ"

# The same file with its patterns gzip-compressed in chunks of 4 (read through H5Dread and
# its chunk cache, not pread): the same rows, byte for byte.
"$IMGTOOL" h5gzip "$TMP/gzip.h5" "$D/patterns.h5" "Scan 1/EBSD/Data/patterns" 4 4 2>"$TMP/err"
case $? in
0)
    run "$S/reference.tif" "$TMP/gzip.h5" >"$TMP/gzip.csv" 2>"$TMP/err" || fail "gzip chunks: $(cat "$TMP/err")"
    cmp -s "$TMP/scan.csv" "$TMP/gzip.csv" && pass "gzip, 4 patterns a chunk: the uncompressed file's rows byte for byte" \
        || fail "gzip, 4 patterns a chunk: rows differ from the uncompressed file's"
    ;;
77) echo "note: this libhdf5 has no gzip filter; gzip-compressed patterns are not run" ;;
*) fail "imgtool h5gzip: $(cat "$TMP/err")" ;;
esac

# Float patterns (the fixture's stored again as float32 or float64, imgtool
# h5retype) with one NaN or infinity are refused as a float TIFF's are,
# naming the file, the pattern and the pixel; the rows of the patterns
# before it stay, none of them nan. The same float32 file without it runs.
DS="Scan 1/EBSD/Data/patterns"
if "$IMGTOOL" h5retype "$TMP/f32.h5" "$D/patterns.h5" "$DS" f32 -1 0 0 0 &&
    "$IMGTOOL" h5retype "$TMP/nan0.h5" "$D/patterns.h5" "$DS" f32 0 10 20 nan &&
    "$IMGTOOL" h5retype "$TMP/big.h5" "$D/patterns.h5" "$DS" f64 2 5 6 1e300; then
    run --columns "$VALUES" "$TMP/f32.h5#0" "$TMP/f32.h5" >"$TMP/f32.csv" 2>"$TMP/err" \
        && [ "$(wc -l <"$TMP/f32.csv")" -eq 37 ] && pass "float32 patterns: 36 rows" \
        || fail "float32 patterns: $(cat "$TMP/err")"
    # (the columns whose header expect_failure knows)
    expect_failure "float32 patterns, a NaN in the first" 1 "nan0.h5: non-finite pixel value at \(10, 20\)" \
        run --columns image,region,x,y,dx,dy,peak,flags "$TMP/f32.h5#0" "$TMP/nan0.h5"
    expect_failure "float32 patterns, a NaN in the reference" 1 "reference: .*nan0.h5: non-finite pixel value at \(10, 20\)" \
        run --columns image,region,x,y,dx,dy,peak,flags "$TMP/nan0.h5#0" "$TMP/f32.h5"
    run --columns "$VALUES" -o "$TMP/big.csv" "$TMP/f32.h5#0" "$TMP/big.h5" 2>"$TMP/err"
    status=$?
    if [ $status -ne 1 ] || ! grep -q "big.h5: page 2: non-finite pixel value at (5, 6)" "$TMP/err" ||
        [ "$(grep -c 'error:' "$TMP/err")" -ne 1 ]; then
        fail "float64 beyond float's range in pattern 2: exit $status: $(cat "$TMP/err")"
    elif [ -e "$TMP/big.csv" ] || ! head -13 "$TMP/f32.csv" | cmp -s - "$TMP/big.csv.part"; then
        fail "float64 beyond float's range in pattern 2: the first 2 patterns' rows are not the float32 file's"
    else
        pass "float64 1e300 in pattern 2: $(grep error: "$TMP/err"); patterns 0 and 1's rows kept in big.csv.part"
    fi
else
    fail "imgtool h5retype could not write the float pattern files"
fi

# int32 patterns read as float: beside a float reference, the float32
# file's rows; beside the 16-bit one, refused in the file's own words.
if "$IMGTOOL" h5retype "$TMP/i32.h5" "$D/patterns.h5" "$DS" i32 -1 0 0 0; then
    run --columns "$VALUES" "$TMP/f32.h5#0" "$TMP/i32.h5" >"$TMP/i32.csv" 2>"$TMP/err" \
        && cmp -s "$TMP/i32.csv" "$TMP/f32.csv" && pass "int32 patterns: the float32 file's 36 rows" \
        || fail "int32 patterns: $(cat "$TMP/err")"
    expect_failure "int32 patterns beside a 16-bit reference" 1 \
        "i32.h5: 32-bit signed integer pixels \(read as 32-bit float\) cannot become 16-bit without loss; the run stages every image as the reference .*reference.tif's 16-bit pixels: convert it" \
        run --columns image,region,x,y,dx,dy,peak,flags "$S/reference.tif" "$TMP/i32.h5"
else
    fail "imgtool h5retype could not write the int32 pattern file"
fi

# One pattern by its scan point or its index, as reference or image.
run --columns "$VALUES" "$S/image_0006.tif" "$S/image_0002.tif" >"$TMP/one_tiff.csv" || fail "one TIFF"
run --columns "$VALUES" "$D/patterns.h5#1,2" "$D/patterns.h5#0,1" >"$TMP/one_point.csv" || fail "FILE#ROW,COL"
run --columns "$VALUES" "$D/patterns.h5#5" "$D/patterns.up2#1" >"$TMP/one_index.csv" || fail "FILE#N"
cmp -s "$TMP/one_tiff.csv" "$TMP/one_point.csv" && pass "FILE#1,2 against FILE#0,1: the TIFFs' rows" \
    || fail "FILE#ROW,COL differs from the TIFFs"
cmp -s "$TMP/one_tiff.csv" "$TMP/one_index.csv" && pass "FILE#5 against another file's #1: the TIFFs' rows" \
    || fail "FILE#N differs from the TIFFs"
run "$D/patterns.h5#1,2" "$D/patterns.h5#0,1" | sed -n 2p | grep -q '^"[^"]*patterns.h5#0,1",0,' \
    && pass "a named pattern keeps its name in the rows" || fail "name: $(run "$D/patterns.h5#1,2" "$D/patterns.h5#0,1" | sed -n 2p)"

# --explain and --meta: the scan's grid and geometry, the pattern centre in Bruker's convention
# whatever the file's (make_fixtures.py: kikuchipy's defaults; H5OINA's tilts 70 and 1.5 degrees,
# 8x8 binning, its centre stored in Oxford's convention).
for f in patterns.h5 patterns.h5oina; do
    run --explain --meta "$TMP/$f.json" "$S/reference.tif" "$D/$f" >/dev/null 2>"$TMP/explain.$f" \
        || fail "--explain over $f: $(cat "$TMP/explain.$f")"
done
explain_has() {
    grep -qxF "$2" "$TMP/explain.$1" && pass "--explain, $1: $(echo "$2" | cut -c10-70)..." \
        || fail "--explain, $1: no line '$2' in: $(grep -A3 'scan:' "$TMP/explain.$1")"
}
explain_has patterns.h5 "clxcorr: scan: kikuchipy h5ebsd 'Scan 1', 2 x 3 points (rows x columns), step 1.5 x 2 um"
explain_has patterns.h5 "clxcorr:   pattern centre 0.42000, 0.31000, 0.58000 (one for the scan; Bruker's convention, from the file's Bruker)"
# kikuchipy wrote the fixture with its placeholder pixel size (1 um) and
# its empty crystal map (identity rotations, no space group): both unknown,
# and said so.
explain_has patterns.h5 "clxcorr:   sample tilt 70, detector tilt 0, azimuthal 0, twist 0 (degrees; nan: not in the file); detector pixel nan um (the file's 1 um is kikuchipy's placeholder), binning 1 (0: not in the file)"
explain_has patterns.h5 "clxcorr:   the crystal map is kikuchipy's empty one (identity rotations, no space group): no orientations"
explain_has patterns.h5oina "clxcorr: scan: Oxford H5OINA '1', 2 x 3 points (rows x columns), step 1.5 x 2 um"
explain_has patterns.h5oina "clxcorr:   pattern centre 0.42000, 0.31000, 0.58000 (the first point's, one per point; Bruker's convention, from the file's Oxford)"
explain_has patterns.h5oina "clxcorr:   sample tilt 70, detector tilt 1.5, azimuthal nan, twist nan (degrees; nan: not in the file); detector pixel nan um, binning 8 (0: not in the file); orientations per point"
if command -v python3 >/dev/null 2>&1; then
    python3 - "$TMP/patterns.h5.json" "$TMP/patterns.h5oina.json" <<'EOF' && pass "--meta: the scan blocks, Bruker's centre from both files" \
        || fail "--meta: the scan block differs"
import json, sys
k, o = (json.load(open(p))["scan"] for p in sys.argv[1:])
for s, fmt, name, conv in ((k, "kikuchipy h5ebsd", "Scan 1", "Bruker"), (o, "Oxford H5OINA", "1", "Oxford")):
    assert (s["format"], s["scan"], s["rows"], s["columns"]) == (fmt, name, 2, 3), s
    assert (s["step_x_um"], s["step_y_um"]) == (1.5, 2), s
    pc = s["pattern_centre"]
    assert pc["convention"] == "Bruker" and pc["file_convention"] == conv, pc
    # H5OINA stores float32 in Oxford's convention: 1e-6 is its precision after the conversion.
    assert all(abs(pc[c] - v) < 1e-6 for c, v in (("pcx", 0.42), ("pcy", 0.31), ("pcz", 0.58))), pc
    assert abs(s["sample_tilt_deg"] - 70) < 1e-4 and s["orientations"] == (s is o), s
assert k["pattern_centre"]["per_point"] == 0 and o["pattern_centre"]["per_point"] == 1
assert (k["detector_tilt_deg"], k["detector_pixel_um"], k["binning"]) == (0, None, 1), k
assert k["placeholders"] == ["detector_pixel_um", "orientations"] and o["placeholders"] == [], (k, o)
assert abs(o["detector_tilt_deg"] - 1.5) < 1e-4 and o["binning"] == 8 and o["detector_pixel_um"] is None, o
EOF
else
    grep -q '"file_convention": "Oxford"' "$TMP/patterns.h5oina.json" && grep -q '"convention": "Bruker"' "$TMP/patterns.h5oina.json" \
        && grep -q '"pcx": 0.4199999' "$TMP/patterns.h5oina.json" && grep -q '"binning": 8,' "$TMP/patterns.h5oina.json" \
        && grep -q '"file_convention": "Bruker"' "$TMP/patterns.h5.json" && grep -q '"pcy": 0.31,' "$TMP/patterns.h5.json" \
        && pass "--meta: the scan blocks (grep: no python3)" || fail "--meta: the scan block differs"
fi

# A file of two scans: one must be chosen; Scan 2 holds Scan 1's patterns in reverse.
expect_failure "two scans, none chosen" 1 "two_scans.h5 holds 2 scans \('Scan 1' and 'Scan 2'\): choose one with --scan NAME" \
    run "$S/reference.tif" "$D/two_scans.h5"
expect_failure "a scan the file does not hold" 1 "has no scan 'Scan 9' with patterns; its scans: 'Scan 1' and 'Scan 2'" \
    run --scan "Scan 9" "$S/reference.tif" "$D/two_scans.h5"
run --scan "Scan 2" --columns "$VALUES" "$S/reference.tif" "$D/two_scans.h5" >"$TMP/scan2.csv" || fail "--scan"
run --columns "$VALUES" "$S/reference.tif" "$S"/image_0006.tif >"$TMP/last.csv" || fail "image 6"
sed -n 2,7p "$TMP/scan2.csv" | cmp -s - "$(tail -n +2 "$TMP/last.csv" >"$TMP/lv" && echo "$TMP/lv")" \
    && pass "--scan 'Scan 2': its first point is Scan 1's last" || fail "--scan 'Scan 2' read the wrong scan"

expect_failure "a scan point outside the grid" 1 "patterns.h5: scan point 2,0 is outside its 2 x 3 grid" \
    run "$S/reference.tif" "$D/patterns.h5#2,0"
expect_failure "a pattern index past the end" 1 "patterns.h5 has 6 patterns \(from 0\); pattern 6 does not exist" \
    run "$S/reference.tif" "$D/patterns.h5#6"
expect_failure "scan columns without a scan" 1 "--columns: scan_row is written for runs over one EBSD pattern file" run --columns scan_row,dx "$S/reference.tif" \
    "$S/image_0001.tif"

# --format h5: one dataset per column, scan-shaped, the CSV's values.
run --format h5 -o "$TMP/out.h5" "$S/reference.tif" "$D/patterns.h5" 2>"$TMP/err" || fail "--format h5: $(cat "$TMP/err")"
[ -f "$TMP/out.h5" ] && [ ! -e "$TMP/out.h5.part" ] && head -c 8 "$TMP/out.h5" | od -c | grep -q 'H   D   F' \
    && pass "--format h5 wrote an HDF5 file" || fail "--format h5: no HDF5 file"
# h5py from $PYTHON, python3 or /usr/bin/python3 (find_python); without it
# a counted SKIP (CI installs python3-h5py).
if find_python h5py numpy; then
    "$PY" - "$TMP/out.h5" "$TMP/scan.csv" <<'EOF' && pass "h5py reads the CSV's values in (2, 3, 6) datasets" \
        || fail "h5py: the file's values differ from the CSV's"
import csv, sys
import h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
rows = list(csv.DictReader(open(sys.argv[2])))
assert f["dx"].shape == (2, 3, 6) and f["scan_x"].shape == (2, 3) and f["region"].shape == (6,), f["dx"].shape
assert f.attrs["step_x_um"] == 1.5 and f.attrs["scan"] == "Scan 1" and f.attrs["mode"] == "accurate"
assert f["dx"].attrs["units"] == "px"
# The CSV's precision: 6 decimals, peak_ratio 4 significant digits, peak 9.
for name, rtol, atol in (("dx", 0, 6e-7), ("dy", 0, 6e-7), ("zncc", 0, 6e-7), ("peak_ratio", 6e-4, 0),
                         ("peak", 6e-9, 0)):
    want = np.array([float(r[name]) for r in rows]).reshape(2, 3, 6)
    assert np.allclose(f[name][()], want, rtol=rtol, atol=atol, equal_nan=True), name
assert (f["flags"][()].ravel() == [int(r["flags"]) for r in rows]).all()
assert (f["scan_col"][()].ravel() == [0, 1, 2, 0, 1, 2]).all()
assert np.allclose(f["scan_y"][()].ravel(), [0, 0, 0, 2, 2, 2])
EOF
else
    skip_check "--format h5: the values read back by h5py" "$PY_MISSING (Debian: python3-h5py)"
fi
expect_failure "--format h5 to standard output" 2 "--format h5 writes a file: give it with -o FILE.h5" \
    run --format h5 "$S/reference.tif" "$D/patterns.h5"
expect_failure "--format h5 with --resume" 2 "an interrupted --format h5 run starts again" \
    run --format h5 --resume -o "$TMP/x.h5" "$S/reference.tif" "$D/patterns.h5"
finish
