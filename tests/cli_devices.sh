#!/bin/sh
# `clxcorr devices` and device selection: P:D, name substrings, device types,
# CLXCORR_DEVICE, and clear errors for devices that do not exist.
. "$TESTS_SRCDIR/lib.sh"
need_device

"$CLXCORR" devices >"$TMP/devices" || fail "devices failed"
for field in "^0:0  " "platform:" "vendor:" "type:" "OpenCL C:" "compute units:" "memory: .* global, .* local" \
    "fp64:" "driver:"; do
    grep -Eq "$field" "$TMP/devices" && pass "devices shows '$field'" || fail "devices lacks '$field': $(cat "$TMP/devices")"
done

make_small_set "$TMP/set" 1
run() {
    "$CLXCORR" offsets -v --regions "$TMP/set/regions.txt" "$@" "$TMP/set/reference.tif" "$TMP/set/image_0001.tif"
}
name=$(sed -n 's/^0:0  //p' "$TMP/devices")
type=$(sed -n 's/^ *type: *//p' "$TMP/devices" | head -1 | tr 'A-Z' 'a-z')
run --device 0:0 >"$TMP/a.csv" 2>"$TMP/a.err" && grep -q "device 0:0" "$TMP/a.err" \
    && pass "--device 0:0" || fail "--device 0:0: $(cat "$TMP/a.err")"
sub=$(printf '%s' "$name" | cut -c2-6 | tr 'a-z' 'A-Z')
run --device "$sub" >"$TMP/b.csv" 2>"$TMP/b.err" && grep -q "device 0:0" "$TMP/b.err" && cmp -s "$TMP/a.csv" "$TMP/b.csv" \
    && pass "--device '$sub' (case-insensitive name substring)" || fail "--device '$sub': $(cat "$TMP/b.err")"
case "$type" in gpu|cpu|accelerator)
    run --device "$type" >"$TMP/c.csv" 2>"$TMP/c.err" && grep -q "device 0:0" "$TMP/c.err" \
        && pass "--device $type" || fail "--device $type: $(cat "$TMP/c.err")" ;;
esac
CLXCORR_DEVICE=0:0 run >"$TMP/d.csv" 2>"$TMP/d.err" && grep -q "device 0:0" "$TMP/d.err" \
    && pass "CLXCORR_DEVICE=0:0" || fail "CLXCORR_DEVICE: $(cat "$TMP/d.err")"

expect_failure "no such index" 1 "no OpenCL device matches '9:9'" run --device 9:9
expect_failure "no such name" 1 "no OpenCL device matches 'no-such-device'" run --device no-such-device
CLXCORR_DEVICE=no-such-device expect_failure "CLXCORR_DEVICE no such name" 1 "no OpenCL device matches 'no-such-device'" run
if ! grep -q "type: *GPU" "$TMP/devices"; then
    expect_failure "no GPU" 1 "no OpenCL device matches 'gpu'" run --device gpu
fi
finish
