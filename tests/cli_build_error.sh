#!/bin/sh
# A kernel that fails to compile: one error line naming the kernel, the
# device and the options, with the full build log, and exit status 1.
# Also: kernels are found through CLXCORR_KERNEL_DIR.
. "$TESTS_SRCDIR/lib.sh"
need_device
make_small_set "$TMP/set" 1
S=$TMP/set

cp -r "$KERNEL_SRCDIR" "$TMP/cl"
chmod -R u+w "$TMP/cl"
CLXCORR_KERNEL_DIR=$TMP/cl "$CLXCORR" offsets --no-cache -vv --regions "$S/regions.txt" "$S/reference.tif" \
    "$S/image_0001.tif" >/dev/null 2>"$TMP/ok.err" && grep -q "kernels from $TMP/cl" "$TMP/ok.err" \
    && pass "CLXCORR_KERNEL_DIR is used" || fail "CLXCORR_KERNEL_DIR: $(grep kernels "$TMP/ok.err")"

printf '\n__kernel void broken(void) { this_is_not_opencl; }\n' >>"$TMP/cl/argmax.cl"
CLXCORR_KERNEL_DIR=$TMP/cl "$CLXCORR" offsets --no-cache --regions "$S/regions.txt" "$S/reference.tif" \
    "$S/image_0001.tif" >"$TMP/out" 2>"$TMP/err"
status=$?
[ "$status" -eq 1 ] && pass "exit status 1" || fail "exit status $status"
grep -q "error: kernel .*argmax.cl failed to compile for .* with options '-cl-std=CL1.2 .*-D WIN_W=32" "$TMP/err" \
    && pass "one error line naming kernel, device and options" || fail "error line: $(grep error: "$TMP/err")"
grep -q "build options: -cl-std=CL1.2" "$TMP/err" && grep -q "build log:" "$TMP/err" \
    && grep -q "this_is_not_opencl" "$TMP/err" && pass "the build log is printed" || fail "build log: $(cat "$TMP/err")"
[ ! -s "$TMP/out" ] && pass "no output" || fail "output written: $(head -2 "$TMP/out")"

rm -f "$TMP/cl/common.h"
expect_failure "kernel directory without kernels" 1 "OpenCL kernels not found in $TMP/cl" \
    env CLXCORR_KERNEL_DIR="$TMP/cl" "$CLXCORR" offsets --regions "$S/regions.txt" "$S/reference.tif" "$S/image_0001.tif"
finish
