# tests/lib.sh - shared by the shell tests: temporary directories, a small
# sample set, and checks on exit status, messages and output.
# The test environment (tests/Makefile.inc) sets CLXCORR, CLXCORR_REF,
# CLXCORR_SAMPLES, TESTS_SRCDIR, KERNEL_SRCDIR and CLANG.

set -u

TMP=$(mktemp -d "${TMPDIR:-/tmp}/clxcorr-test.XXXXXX") || exit 99
trap 'rm -rf "$TMP"' EXIT
failures=0
skipped=0

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

pass() {
    echo "ok: $*"
}

# skip_check NAME REASON: a check that cannot run here (a Python module or
# a program missing, say). It prints "SKIP: NAME: REASON", never "ok", and
# is counted: finish names the number, and .ci/run counts every such line
# of the suite's logs. A test whose whole point cannot run exits 77 instead.
skip_check() {
    echo "SKIP: $1: $2"
    skipped=$((skipped + 1))
}

# Ends the test: 0 when nothing failed; the checks skipped are counted.
finish() {
    [ "$skipped" -eq 0 ] || echo "$skipped check(s) skipped (the SKIP lines above say why)"
    if [ "$failures" -ne 0 ]; then
        echo "$failures check(s) failed" >&2
        exit 1
    fi
    exit 0
}

# find_python MODULE...: sets PY to a Python 3 interpreter that imports
# every MODULE, trying $PYTHON, then python3 from PATH, then the system's
# /usr/bin/python3 (the first python3 in PATH may be a pyenv or conda one
# without numpy or h5py, where Debian's has them); returns 1, PY empty and
# PY_MISSING saying what was tried, when none does.
find_python() {
    PY=
    PY_MISSING=
    for candidate in ${PYTHON:-} python3 /usr/bin/python3; do
        command -v "$candidate" >/dev/null 2>&1 || continue
        if "$candidate" -c "import sys, importlib; [importlib.import_module(m) for m in sys.argv[1:]]" "$@" \
            >/dev/null 2>&1; then
            PY=$candidate
            return 0
        fi
        PY_MISSING="$PY_MISSING $candidate"
    done
    PY_MISSING="no python3 that imports $*${PY_MISSING:+ (tried:$PY_MISSING)}"
    return 1
}

# Skips the test (exit 77) when no OpenCL device is there.
need_device() {
    if ! "$CLXCORR" devices >/dev/null 2>"$TMP/devices.err"; then
        echo "SKIP: no OpenCL device: $(cat "$TMP/devices.err")"
        exit 77
    fi
}

# Skips the test (exit 77) when this clxcorr was built without HDF5: $1 says
# what of the test needs it.
need_hdf5() {
    if ! "$CLXCORR" --version | grep -q 'features:.* hdf5'; then
        echo "SKIP: this clxcorr was built without HDF5 ($1)"
        exit 77
    fi
}

# A small deterministic set in $1: reference.tif, image_000N.tif, regions.txt, truth.csv.
make_small_set() {
    "$CLXCORR_SAMPLES" --out "$1" --size 160x128 --count "${2:-4}" --grid 3x2 --window 32x32 --margin 8 \
        --max-shift 3 || exit 99
}

# expect_failure NAME STATUS PATTERN COMMAND...: the command must exit with
# STATUS, print a one-line error matching PATTERN (grep -E) on standard error,
# and write nothing but at most a CSV header to standard output.
expect_failure() {
    name=$1 want_status=$2 pattern=$3
    shift 3
    "$@" >"$TMP/out" 2>"$TMP/err"
    status=$?
    if [ "$status" -ne "$want_status" ]; then
        fail "$name: exit status $status, expected $want_status; stderr: $(cat "$TMP/err")"
    elif ! grep -Eq -- "$pattern" "$TMP/err"; then
        fail "$name: stderr does not match '$pattern': $(cat "$TMP/err")"
    elif [ "$(grep -c 'error:' "$TMP/err")" -ne 1 ]; then
        fail "$name: expected exactly one error line: $(cat "$TMP/err")"
    elif [ -s "$TMP/out" ] && [ "$(grep -vcE '^(image,region,x,y,dx,dy,peak,flags(,zncc,peak_ratio,iterations(,znssd,sigma_dx,sigma_dy(,dudx,dudy,dvdx,dvdy,exx,eyy,exy)?)?)?|page,left,right,region,x,y,w,h,rx,ry)$' "$TMP/out")" -ne 0 ]; then
        fail "$name: rows written although the run failed before any image: $(head -3 "$TMP/out")"
    else
        pass "$name: $(cat "$TMP/err")"
    fi
}

# compare_csv NAME A B TOL: same rows, same image/region/x/y/flags, dx and dy
# within TOL, peak within TOL relative.
compare_csv() {
    name=$1 a=$2 b=$3 tol=$4
    if [ "$(wc -l <"$a")" -ne "$(wc -l <"$b")" ] || [ "$(wc -l <"$a")" -lt 2 ]; then
        fail "$name: $(wc -l <"$a") rows vs $(wc -l <"$b")"
        return
    fi
    if ! paste -d '\n' "$a" "$b" | awk -F, -v tol="$tol" '
        NR % 2 == 1 { split($0, r); next }
        {
            if (NR == 2) { if ($0 != r[1] "," r[2] "," r[3] "," r[4] "," r[5] "," r[6] "," r[7] "," r[8]) { print "header differs"; bad = 1 } ; next }
            if ($1 != r[1] || $2 != r[2] || $3 != r[3] || $4 != r[4] || $8 != r[8]) { print "row " NR/2 ": " $0 " vs " r[1] "," r[2] "," r[3] "," r[4] ",...," r[8]; bad = 1; next }
            ex = $5 - r[5]; ey = $6 - r[6]; if (ex < 0) ex = -ex; if (ey < 0) ey = -ey
            if (ex > worst) worst = ex; if (ey > worst) worst = ey
            ep = $7 - r[7]; if (ep < 0) ep = -ep; rp = r[7] < 0 ? -r[7] : r[7]
            if (ex > tol || ey > tol || ep > tol * rp + 1e-9) { print "row " NR/2 ": " $0 " vs " r[5] "," r[6] "," r[7]; bad = 1 }
        }
        END { printf "worst offset difference %.3g px\n", worst; exit bad }' >"$TMP/compare"; then
        fail "$name: $(head -5 "$TMP/compare")"
    else
        pass "$name: $(tail -1 "$TMP/compare") over $(($(wc -l <"$a") - 1)) rows (tolerance $tol)"
    fi
}

# Runs the shell function FUNC on nproc slices of FILE's lines at once (one
# background job per core, never more: issue 37), each slice's output in
# $TMP/result.N; then all their output, in slice order, in $TMP/results.
run_on_cores() {
    roc_workers=$(nproc 2>/dev/null || echo 1)
    roc_w=1
    while [ "$roc_w" -le "$roc_workers" ]; do
        awk -v n="$roc_workers" -v k="$roc_w" 'NR % n == k % n' "$1" >"$TMP/part.$roc_w"
        "$2" "$TMP/part.$roc_w" >"$TMP/result.$roc_w" 2>&1 &
        roc_w=$((roc_w + 1))
    done
    wait
    cat "$TMP"/result.* >"$TMP/results"
}
