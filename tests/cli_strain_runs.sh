#!/bin/sh
# clxcorr strain through the ways a long run is split or continued, and its
# output read back in every format:
# - --resume after a run killed at several points (CLXCORR_FAULT_KILL=N),
#   and the fingerprint refusing a resume with other geometry;
# - --shard K/N merged (clxcorr merge), over image files and over a pattern
#   file's scan (rows of scan_row,scan_col,...);
# - mpirun -n 2 and -n 3, and a killed MPI run resumed under mpirun;
# each giving the uninterrupted single run's bytes;
# - --format tsv and jsonl parsed back to the CSV's values, --format h5
#   read back with h5py (a counted SKIP without it), over files and a scan;
# - the documented refusal of --remap with --resume, --shard and MPI
#   (doc/hrebsd.md, "Remapping").
. "$TESTS_SRCDIR/lib.sh"
need_device
S=$TMP/k
# 12 strained patterns of a 3 x 4 scan, 20 um apart: each pattern's centre
# moves with the beam (--pattern-centres beam-shift), so that a pattern
# fitted with another one's geometry (a shard's, a rank's or a resume's
# local index taken for the pattern's own) gives other rows. 16 windows
# clear of the pre-filter's border.
"$CLXCORR_SAMPLES" --kikuchi --out "$S" --count 12 --strain 1e-3 --size 200x200 --grid 4x4 --window 40x40 \
    --margin 20 --step 20,20 --scan-cols 4 >/dev/null 2>&1 || exit 99
GEOM="--pc 0.5,0.35,0.65 --sample-tilt 70 --detector-tilt 10 --step 20,20 --scan-cols 4 --pixel-size 50 --pattern-centres beam-shift"
strain() {
    # shellcheck disable=SC2086
    "$CLXCORR" strain -q $GEOM --regions "$S/regions.txt" "$@"
}
strain -o "$TMP/full.csv" "$S/reference.tif" "$S"/image_*.tif || { fail "the uninterrupted run"; finish; }
# Against the truth (RMS over the deviatoric components): measured 6.8e-6
# (PoCL; 1.5e-3 with the reference's centre for every pattern); bound
# three times that.
rms=$(awk -F, 'NR == FNR { if (FNR > 1) { for (k = 0; k < 6; k++) t[FNR, k] = $(11 + k) } next }
    FNR > 1 { for (k = 0; k < 6; k++) { d = $(2 + k) - t[FNR, k]; s += d * d; n++ } }
    END { printf "%.3g\n", n ? sqrt(s / n) : 1 }' "$S/truth.csv" "$TMP/full.csv")
[ "$(wc -l <"$TMP/full.csv")" -eq 13 ] && awk -F, 'NR > 1 && ($12 != 16 || $13 != 4) { bad = 1 } END { exit bad }' \
    "$TMP/full.csv" && awk -v e="$rms" 'BEGIN { exit !(e < 2e-5) }' \
    && pass "the uninterrupted run: 12 rows, 16 windows each, deviatoric, $rms RMS off the truth (bound 2e-5)" \
    || fail "the uninterrupted run: $rms RMS off the truth: $(head -3 "$TMP/full.csv")"

# --- --resume ------------------------------------------------------------------
# Killed (SIGKILL) at a step of its writing, then resumed: the same bytes.
# The run takes 19 steps: 3 is before the first row (the record itself
# being written), 9 after 4 rows, 18 after the last row and before the
# rename.
for step in 3 9 18; do
    rm -f "$TMP/r.csv"*
    CLXCORR_FAULT_KILL=$step strain -o "$TMP/r.csv" "$S/reference.tif" "$S"/image_*.tif 2>/dev/null
    if [ -e "$TMP/r.csv" ] || [ ! -e "$TMP/r.csv.part" ]; then
        fail "killed at step $step: expected r.csv.part and no r.csv: $(ls "$TMP" | grep '^r\.csv' | tr '\n' ' ')"
        continue
    fi
    "$CLXCORR" strain $GEOM --regions "$S/regions.txt" --resume -o "$TMP/r.csv" "$S/reference.tif" "$S"/image_*.tif \
        2>"$TMP/err"
    status=$?
    if [ "$status" -ne 0 ]; then
        fail "killed at step $step, resumed: exit $status: $(cat "$TMP/err")"
    elif ! cmp -s "$TMP/r.csv" "$TMP/full.csv" || ls "$TMP"/r.csv.* >/dev/null 2>&1; then
        fail "killed at step $step, resumed: r.csv differs from the uninterrupted run's"
    else
        pass "killed at step $step, resumed: byte-identical ($(grep -o '[0-9]* of [0-9]* images already in\|starting from the first image' "$TMP/err"))"
    fi
done
# The fingerprint holds strain's own options: another pattern centre is refused, the .part untouched.
rm -f "$TMP/f.csv"*
CLXCORR_FAULT_KILL=9 strain -o "$TMP/f.csv" "$S/reference.tif" "$S"/image_*.tif 2>/dev/null
cp "$TMP/f.csv.part" "$TMP/f.before" 2>/dev/null
expect_failure "resume with another --pc, named" 1 "f.csv.part was written by a run with other options \\(--pc 1 0.5 0.3499[0-9]* 0.65[0-9]* there, 1 0.5 0.35999[0-9]* 0.65[0-9]* here; " \
    "$CLXCORR" strain -q --pc 0.5,0.36,0.65 --sample-tilt 70 --detector-tilt 10 --regions "$S/regions.txt" --resume \
    -o "$TMP/f.csv" "$S/reference.tif" "$S"/image_*.tif
expect_failure "resume with another --max-residual, named" 1 "f.csv.part was written by a run with other options \\(--max-residual [^ ]* [^ ]* there, [^ ]* 0.2[0-9]* here\\)" \
    strain --max-residual 0.2 --resume -o "$TMP/f.csv" "$S/reference.tif" "$S"/image_*.tif
# (the last --pattern-centres wins: the rows would be fitted with the reference's centre)
expect_failure "resume with another --pattern-centres" 1 "f.csv.part was written by a run with other options" \
    strain --pattern-centres fixed --resume -o "$TMP/f.csv" "$S/reference.tif" "$S"/image_*.tif
cmp -s "$TMP/f.csv.part" "$TMP/f.before" && pass "the refused resumes left f.csv.part as it was" \
    || fail "a refused resume changed f.csv.part"

# --- --shard K/N and merge -----------------------------------------------------
for k in 1 2 3; do
    strain --shard "$k/3" -o "$TMP/s$k.csv" "$S/reference.tif" "$S"/image_*.tif || fail "strain --shard $k/3"
done
head -1 "$TMP/s2.csv" | grep -q '^# clxcorr shard 2/3 first=4 images=4 total=12 windows=1 list=' \
    && pass "shard 2/3 says what it holds: $(head -1 "$TMP/s2.csv" | cut -c1-60)" || fail "shard line: $(head -1 "$TMP/s2.csv")"
"$CLXCORR" merge -o "$TMP/merged.csv" "$TMP/s2.csv" "$TMP/s3.csv" "$TMP/s1.csv" 2>"$TMP/err" \
    && cmp -s "$TMP/merged.csv" "$TMP/full.csv" && pass "3 strain shards merged: the single run's bytes" \
    || fail "3 strain shards merged: $(cat "$TMP/err"; diff "$TMP/merged.csv" "$TMP/full.csv" | head -3)"
# A shard killed and resumed is still its share.
rm -f "$TMP/s2.csv"
CLXCORR_FAULT_KILL=4 strain --shard 2/3 -o "$TMP/s2.csv" "$S/reference.tif" "$S"/image_*.tif 2>/dev/null
strain --shard 2/3 --resume -o "$TMP/s2.csv" "$S/reference.tif" "$S"/image_*.tif 2>/dev/null \
    && "$CLXCORR" merge "$TMP/s1.csv" "$TMP/s2.csv" "$TMP/s3.csv" 2>"$TMP/err" | cmp -s - "$TMP/full.csv" \
    && pass "shard 2/3 killed, resumed and merged: the single run's bytes" || fail "the resumed shard: $(cat "$TMP/err")"

# A pattern file's scan: rows of scan points (a header without 'image').
if "$CLXCORR" --version | grep -q 'features:.* hdf5'; then
    D=$TESTS_SRCDIR/data/ebsd
    scan() {
        "$CLXCORR" strain -q --pc 0.42,0.31,0.58 --sample-tilt 70 --detector-tilt 0 --grid 2x2 --window 24x24 \
            --margin 8 "$@" "$D/patterns.h5#0,0" "$D/patterns.h5"
    }
    scan -o "$TMP/scan.csv" || fail "strain over patterns.h5"
    scan --shard 1/2 -o "$TMP/sc1.csv" && scan --shard 2/2 -o "$TMP/sc2.csv" || fail "strain --shard over a scan"
    "$CLXCORR" merge -o "$TMP/scm.csv" "$TMP/sc1.csv" "$TMP/sc2.csv" 2>"$TMP/err" && cmp -s "$TMP/scm.csv" "$TMP/scan.csv" \
        && pass "a scan's 2 strain shards merged: the single run's rows ($(head -1 "$TMP/scan.csv" | cut -c1-30)...)" \
        || fail "a scan's strain shards merged: $(cat "$TMP/err")"
else
    skip_check "strain shards over a pattern file's scan" "this clxcorr was built without HDF5"
fi

# --- mpirun --------------------------------------------------------------------
if [ -z "${MPIRUN:-}" ] || ! "$CLXCORR" --version | grep -q ' mpi '; then
    skip_check "strain under mpirun" "no mpirun found by configure, or a build without MPI"
    MPI=
else
    MPI=$MPIRUN
    # As tests/cli_mpi.sh: root in CI, ranks sharing a core, no leak check under mpirun.
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
    export ASAN_OPTIONS
    mpi() {
        n=$1
        shift
        # shellcheck disable=SC2086
        "$MPIRUN" -n "$n" "$CLXCORR" strain -q $GEOM --regions "$S/regions.txt" "$@"
    }
    mpi 2 -o "$TMP/m2.csv" "$S/reference.tif" "$S"/image_*.tif 2>"$TMP/err" && cmp -s "$TMP/m2.csv" "$TMP/full.csv" \
        && pass "mpirun -n 2 clxcorr strain: the single run's bytes" || fail "mpirun -n 2 strain: $(tail -3 "$TMP/err")"
    mpi 3 "$S/reference.tif" "$S"/image_*.tif >"$TMP/m3.csv" 2>"$TMP/err" && cmp -s "$TMP/m3.csv" "$TMP/full.csv" \
        && pass "mpirun -n 3 clxcorr strain to standard output: the single run's bytes" \
        || fail "mpirun -n 3 strain: $(tail -3 "$TMP/err")"
    CLXCORR_FAULT_KILL=6 mpi 2 -o "$TMP/mk.csv" "$S/reference.tif" "$S"/image_*.tif >/dev/null 2>&1
    [ -e "$TMP/mk.csv.part" ] && mpi 2 --resume -o "$TMP/mk.csv" "$S/reference.tif" "$S"/image_*.tif 2>"$TMP/err" \
        && cmp -s "$TMP/mk.csv" "$TMP/full.csv" \
        && pass "mpirun -n 2 strain killed at step 6, resumed under mpirun: the single run's bytes" \
        || fail "the MPI strain resume: $(tail -3 "$TMP/err")"
fi

# --- every output format read back ----------------------------------------------
strain --format tsv -o "$TMP/full.tsv" "$S/reference.tif" "$S"/image_*.tif || fail "--format tsv"
strain --format jsonl -o "$TMP/full.jsonl" "$S/reference.tif" "$S"/image_*.tif || fail "--format jsonl"
# TSV: split on tabs, every field the CSV's (the image names hold no comma or tab).
awk -F'\t' 'NR == FNR { n = split($0, f, ","); for (k = 1; k <= n; k++) want[FNR, k] = f[k]; nf[FNR] = n; rows = FNR; next }
    { if (NF != nf[FNR]) bad = 1; for (k = 1; k <= NF; k++) if ($k != want[FNR, k]) bad = 1 }
    END { exit bad || FNR != rows }' "$TMP/full.csv" "$TMP/full.tsv" \
    && pass "--format tsv: 13 lines, every field the CSV's" || fail "--format tsv differs: $(head -2 "$TMP/full.tsv")"
# JSON lines: parsed (json.loads), each object's keys the CSV's columns in order, its values the CSV's numbers.
if find_python; then
    "$PY" - "$TMP/full.csv" "$TMP/full.jsonl" <<'EOF' >"$TMP/json.out" 2>&1 \
        && pass "--format jsonl: $(cat "$TMP/json.out")" || fail "--format jsonl: $(cat "$TMP/json.out")"
import csv, json, math, sys
rows = list(csv.reader(open(sys.argv[1])))
objs = [json.loads(line) for line in open(sys.argv[2])]
assert len(objs) == len(rows) - 1 == 12, (len(objs), len(rows))
for row, obj in zip(rows[1:], objs):
    assert list(obj) == rows[0], (list(obj), rows[0])
    for key, text in zip(rows[0], row):
        got = obj[key]
        if key == "image":
            assert got == text, (got, text)
        else:
            assert isinstance(got, (int, float)) and not isinstance(got, bool), (key, got)
            assert got == float(text) or (math.isnan(got) and text == "nan"), (key, got, text)
    assert isinstance(obj["windows"], int) and isinstance(obj["flags"], int), obj
print("12 objects, keys and values the CSV's")
EOF
else
    skip_check "--format jsonl parsed by json.loads" "$PY_MISSING"
fi
# HDF5: one dataset per column, the CSV's values (over files: one per
# pattern; over a scan: (rows, columns)).
if "$CLXCORR" --version | grep -q 'features:.* hdf5'; then
    strain --format h5 -o "$TMP/full.h5" "$S/reference.tif" "$S"/image_*.tif || fail "--format h5"
    scan --format h5 -o "$TMP/scan.h5" || fail "--format h5 over a scan"
    if find_python h5py numpy; then
        "$PY" - "$TMP/full.h5" "$TMP/full.csv" "$TMP/scan.h5" "$TMP/scan.csv" <<'EOF' >"$TMP/h5.out" 2>&1 \
            && pass "--format h5 (h5py): $(cat "$TMP/h5.out")" || fail "--format h5: $(cat "$TMP/h5.out")"
import csv, sys
import h5py, numpy as np
def check(path, csv_path, shape):
    f = h5py.File(path, "r")
    rows = list(csv.DictReader(open(csv_path)))
    names = list(rows[0])
    assert sorted(f.keys()) == sorted(names), (sorted(f.keys()), names)
    assert f.attrs["mode"] == "strain", dict(f.attrs)
    for name in names:
        d = f[name][()]
        assert d.shape == shape, (name, d.shape, shape)
        d = d.ravel()
        if name == "image":
            assert [v.decode() if isinstance(v, bytes) else v for v in d] == [r[name] for r in rows], name
            continue
        want = np.array([float(r[name]) for r in rows])
        if name in ("windows", "flags", "scan_row", "scan_col"):
            assert (d == want).all(), (name, d, want)
        else:
            # The CSV's precision: 7 significant digits (e, w), 4 decimals (residual, scan_x, scan_y).
            assert np.allclose(d, want, rtol=1e-6, atol=5e-5 if name in ("residual", "scan_x", "scan_y") else 0,
                               equal_nan=True), (name, d[:3], want[:3])
    assert f["w1"].attrs["units"] == "rad" and f["residual"].attrs["units"] == "px"
    return len(names)
n = check(sys.argv[1], sys.argv[2], (12,))
m = check(sys.argv[3], sys.argv[4], (2, 3))
print("%d datasets of 12 patterns, %d of a 2 x 3 scan, the CSV's values" % (n, m))
EOF
    else
        skip_check "--format h5 read back by h5py" "$PY_MISSING (Debian: python3-h5py)"
    fi
else
    skip_check "--format h5" "this clxcorr was built without HDF5"
fi

# --- --remap refuses what it cannot do (doc/hrebsd.md) ------------------------------
expect_failure "--remap with --resume" 2 "--remap keeps every pattern until its last pass: it does not run with --resume" \
    strain --remap --resume -o "$TMP/x.csv" "$S/reference.tif" "$S"/image_*.tif
expect_failure "--remap with --shard" 2 "--remap keeps every pattern until its last pass: it does not run with --shard" \
    strain --remap --shard 1/2 -o "$TMP/x.csv" "$S/reference.tif" "$S"/image_*.tif
[ ! -e "$TMP/x.csv" ] && [ ! -e "$TMP/x.csv.part" ] && pass "the refused --remap runs wrote nothing" \
    || fail "a refused --remap run wrote $(ls "$TMP"/x.csv*)"
if [ -n "$MPI" ]; then
    mpi 2 --remap -o "$TMP/xm.csv" "$S/reference.tif" "$S"/image_*.tif >"$TMP/out" 2>"$TMP/err"
    status=$?
    if [ "$status" -eq 0 ]; then
        fail "--remap under mpirun -n 2: exit status 0"
    elif ! grep -q "error: --remap does not run under mpirun" "$TMP/err"; then
        fail "--remap under mpirun -n 2: $(grep -v '^[-=]' "$TMP/err" | head -3)"
    elif [ -e "$TMP/xm.csv" ] || [ -e "$TMP/xm.csv.part" ] || [ -s "$TMP/out" ]; then
        fail "--remap under mpirun -n 2 wrote rows"
    else
        pass "--remap under mpirun -n 2: $(grep -m1 'error:' "$TMP/err"), no output"
    fi
else
    skip_check "--remap under mpirun refused" "no mpirun found by configure, or a build without MPI"
fi
finish
