#!/bin/sh
# Error path: a window that extends outside the image, from a file or a grid.
. "$TESTS_SRCDIR/lib.sh"
need_device
make_small_set "$TMP/set" 1
S=$TMP/set
printf '0 0 32 32\n140 10 32 32\n' >"$TMP/regions.txt"
expect_failure "window outside (file)" 1 "window 1 .*x=140.* extends outside the 160x128 image" \
    "$CLXCORR" offsets --regions "$TMP/regions.txt" "$S/reference.tif" "$S/image_0001.tif"
printf -- '-1 0 32 32\n' >"$TMP/neg.txt"
expect_failure "negative corner" 1 "window 0 .* extends outside|negative|expected" \
    "$CLXCORR" offsets --regions "$TMP/neg.txt" "$S/reference.tif" "$S/image_0001.tif"
expect_failure "grid does not fit" 1 "grid of 2x2 windows of 150x32 with margin 10 does not fit in a 160x128 image" \
    "$CLXCORR" offsets --grid 2x2 --window 150x32 --margin 10 "$S/reference.tif" "$S/image_0001.tif"
finish
