#!/bin/sh
# Error path: a missing reference, image, windows file or list file.
. "$TESTS_SRCDIR/lib.sh"
need_device
make_small_set "$TMP/set" 1
S=$TMP/set
expect_failure "missing reference" 1 "reference: $TMP/nope.tif: No such file or directory" \
    "$CLXCORR" offsets --regions "$S/regions.txt" "$TMP/nope.tif" "$S/image_0001.tif"
expect_failure "missing image" 1 "$TMP/nope.tif: No such file or directory" \
    "$CLXCORR" offsets --regions "$S/regions.txt" "$S/reference.tif" "$TMP/nope.tif"
expect_failure "missing windows file" 1 "$TMP/nope.txt: No such file or directory" \
    "$CLXCORR" offsets --regions "$TMP/nope.txt" "$S/reference.tif" "$S/image_0001.tif"
expect_failure "missing list file" 1 "$TMP/nope.lst: No such file or directory" \
    "$CLXCORR" offsets --regions "$S/regions.txt" --list "$TMP/nope.lst" "$S/reference.tif"
finish
