#!/bin/sh
# Error path: windows of different sizes in one windows file.
. "$TESTS_SRCDIR/lib.sh"
need_device
make_small_set "$TMP/set" 1
S=$TMP/set
printf '# two sizes\n0 0 32 32\n40 0 32 32\n80 0 24 32\n' >"$TMP/regions.txt"
expect_failure "window sizes" 1 "window 2 is 24x32 but window 0 is 32x32" \
    "$CLXCORR" offsets --regions "$TMP/regions.txt" "$S/reference.tif" "$S/image_0001.tif"
printf '0 0 32\n' >"$TMP/short.txt"
expect_failure "malformed windows line" 1 "short.txt:1: expected" \
    "$CLXCORR" offsets --regions "$TMP/short.txt" "$S/reference.tif" "$S/image_0001.tif"
finish
