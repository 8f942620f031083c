#!/bin/sh
# Error path: an image whose size differs from the reference's.
. "$TESTS_SRCDIR/lib.sh"
need_device
make_small_set "$TMP/set" 1
S=$TMP/set
"$IMGTOOL" resize "$TMP/small.tif" "$S/image_0001.tif" 150 128 || exit 99
expect_failure "image size" 1 "$TMP/small.tif is 150x128 but the reference $S/reference.tif is 160x128" \
    "$CLXCORR" offsets --regions "$S/regions.txt" "$S/reference.tif" "$TMP/small.tif"
finish
