#!/bin/sh
# The quickstart's job: the bundled sample set (900 x 900 16-bit Kikuchi-like
# patterns, 50 windows of 100 x 100) through `clxcorr offsets --mode seed`
# agrees with the double-precision host reference of doc/conventions.md: within
# 1e-3 px in float and 1e-6 px with --double, same integer peaks and flags.
. "$TESTS_SRCDIR/lib.sh"
need_device

# The sample set as `make sample-data` writes it, fewer images to keep the
# suite quick on a CPU.
"$CLXCORR_SAMPLES" --out "$TMP/set" --count 6 || exit 99
set -- "$TMP/set/reference.tif" "$TMP/set"/image_*.tif
"$CLXCORR_REF" --regions "$TMP/set/regions.txt" "$@" >"$TMP/ref.csv" || exit 99

"$CLXCORR" offsets --mode seed --regions "$TMP/set/regions.txt" "$@" >"$TMP/float.csv" \
    || fail "clxcorr offsets failed"
compare_csv "seed mode, float, vs host reference" "$TMP/float.csv" "$TMP/ref.csv" 1e-3

if "$CLXCORR" devices | grep -q "fp64: *yes"; then
    "$CLXCORR" offsets --mode seed --double --regions "$TMP/set/regions.txt" "$@" >"$TMP/double.csv" \
        || fail "clxcorr offsets --double failed"
    compare_csv "seed mode, double, vs host reference" "$TMP/double.csv" "$TMP/ref.csv" 1e-6
fi

# The integer part of every offset is the reference's argmax: the sample
# truth is not what seed mode measures (its bias is known), but the grid
# must match: 6 images x 50 windows.
rows=$(($(wc -l <"$TMP/float.csv") - 1))
[ "$rows" -eq 300 ] && pass "300 rows" || fail "$rows rows, expected 300"
finish
