#!/bin/sh
# Error path: an empty image list (from a file, or from standard input).
. "$TESTS_SRCDIR/lib.sh"
need_device
make_small_set "$TMP/set" 1
S=$TMP/set
printf '# nothing here\n\n' >"$TMP/empty.txt"
expect_failure "empty list file" 1 "no images to process: $TMP/empty.txt lists none" \
    "$CLXCORR" offsets --regions "$S/regions.txt" --list "$TMP/empty.txt" "$S/reference.tif"
expect_failure "empty standard input" 1 "no images to process: - lists none" \
    "$CLXCORR" offsets --regions "$S/regions.txt" --list - "$S/reference.tif" </dev/null
finish
