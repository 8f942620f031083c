#!/bin/sh
# Error path: a batch that cannot fit in device memory is refused up front
# with the sizes involved, not left to fail inside the device.
. "$TESTS_SRCDIR/lib.sh"
need_device
make_small_set "$TMP/set" 1
S=$TMP/set
# One whole-image window: a 320x256 FFT layout per image, so 65535 images
# need far more memory than any device has.
printf '0 0 160 128\n' >"$TMP/whole.txt"
expect_failure "batch too large" 1 "a batch of 65535 images needs [0-9]+ MiB of device memory; .* has [0-9]+ MiB \\(at most [0-9]+ images fit\\)" \
    "$CLXCORR" offsets --method fft --batch 65535 --regions "$TMP/whole.txt" "$S/reference.tif" "$S/image_0001.tif"
expect_failure "too many tiles" 1 "a batch of 20000 images with 6 windows is 120000 tiles; at most 65535" \
    "$CLXCORR" offsets --batch 20000 --regions "$S/regions.txt" "$S/reference.tif" "$S/image_0001.tif"
finish
