#!/bin/sh
# Error path: a batch that cannot fit in device memory is refused up front
# with the sizes involved, not left to fail inside the device.
. "$TESTS_SRCDIR/lib.sh"
need_device
make_small_set "$TMP/set" 1
S=$TMP/set
expect_failure "batch too large" 1 "a batch of 1048576 images needs [0-9]+ MiB of device memory; .* has [0-9]+ MiB \\(at most [0-9]+ images fit\\)" \
    "$CLXCORR" offsets --batch 1048576 --regions "$S/regions.txt" "$S/reference.tif" "$S/image_0001.tif"
finish
