#!/bin/sh
# Error path: a file that is not an image clxcorr reads, and an empty file.
. "$TESTS_SRCDIR/lib.sh"
need_device
make_small_set "$TMP/set" 1
S=$TMP/set
echo "not an image" >"$TMP/notes.tif"
expect_failure "text file" 1 "$TMP/notes.tif: unsupported image format" \
    "$CLXCORR" offsets --regions "$S/regions.txt" "$S/reference.tif" "$TMP/notes.tif"
: >"$TMP/empty.png"
expect_failure "empty file" 1 "$TMP/empty.png: empty file" \
    "$CLXCORR" offsets --regions "$S/regions.txt" "$S/reference.tif" "$TMP/empty.png"
finish
