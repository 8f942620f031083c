#!/bin/sh
# Error path: --double on a device without double precision. The test hides
# fp64 (CLXCORR_TEST_HIDE_FP64) since the devices CI has all offer it.
. "$TESTS_SRCDIR/lib.sh"
need_device
make_small_set "$TMP/set" 1
S=$TMP/set
CLXCORR_TEST_HIDE_FP64=1 expect_failure "--double without fp64" 1 "no double precision \\(cl_khr_fp64\\)" \
    "$CLXCORR" offsets --double --regions "$S/regions.txt" "$S/reference.tif" "$S/image_0001.tif"
CLXCORR_TEST_HIDE_FP64=1 "$CLXCORR" devices | grep -q "fp64: *no" && pass "devices reports fp64: no" \
    || fail "devices does not report the hidden fp64"
finish
