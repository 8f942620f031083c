#!/bin/sh
# Error path: an even (or too large) F for the F x F peak fit.
. "$TESTS_SRCDIR/lib.sh"
need_device
make_small_set "$TMP/set" 1
S=$TMP/set
expect_failure "even fit size" 2 "--fit-size: 4 is even" \
    "$CLXCORR" offsets --fit-size 4 --regions "$S/regions.txt" "$S/reference.tif" "$S/image_0001.tif"
printf '0 0 4 4\n' >"$TMP/tiny.txt"
expect_failure "fit larger than the windows" 1 "fit size 9 is too large for 4x4 windows \\(at most 7\\)" \
    "$CLXCORR" offsets --fit-size 9 --regions "$TMP/tiny.txt" "$S/reference.tif" "$S/image_0001.tif"
finish
