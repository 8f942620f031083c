#!/bin/sh
# Error path: a TIFF cut off in the middle of its pixel data.
. "$TESTS_SRCDIR/lib.sh"
need_device
make_small_set "$TMP/set" 1
S=$TMP/set
size=$(wc -c <"$S/image_0001.tif")
head -c $((size / 2)) "$S/image_0001.tif" >"$TMP/cut.tif"
expect_failure "truncated image" 1 "$TMP/cut.tif: .*(truncated|corrupt)" \
    "$CLXCORR" offsets --regions "$S/regions.txt" "$S/reference.tif" "$TMP/cut.tif"
head -c 100 "$S/reference.tif" >"$TMP/cutref.tif"
expect_failure "truncated reference" 1 "reference: $TMP/cutref.tif: .*(truncated|corrupt)" \
    "$CLXCORR" offsets --regions "$S/regions.txt" "$TMP/cutref.tif" "$S/image_0001.tif"
finish
