#!/bin/sh
# Several devices in one process (--device LIST, --device all): the batches
# are shared among the devices and the rows come out byte-identical, in
# input order, to one device's; with two contexts on the one PoCL device
# both take batches. A malformed list is refused.
. "$TESTS_SRCDIR/lib.sh"
need_device
make_small_set "$TMP/set" 9
S=$TMP/set
run() {
    "$CLXCORR" offsets --mode seed --method fft --regions "$S/regions.txt" "$@"
}
run "$S/reference.tif" "$S"/image_*.tif >"$TMP/one.csv" || fail "one device"

# Two contexts on the first device (the same device named twice), small
# batches so that both get several.
dev=$("$CLXCORR" devices | sed -n 's/^ *\([0-9][0-9]*:[0-9][0-9]*\) .*/\1/p' | head -1)
[ -n "$dev" ] || { fail "no P:D in clxcorr devices"; finish; }
run -v --batch 1 --device "$dev,$dev" "$S/reference.tif" "$S"/image_*.tif >"$TMP/two.csv" 2>"$TMP/two.err"
if [ $? -ne 0 ]; then
    fail "--device $dev,$dev failed: $(cat "$TMP/two.err")"
elif ! cmp -s "$TMP/two.csv" "$TMP/one.csv"; then
    fail "--device $dev,$dev: rows differ from one device"
else
    pass "--device $dev,$dev: rows identical to one device"
    # Both contexts took images, and together all 9.
    n0=$(sed -n 's/.*device 0 (.*): \([0-9]*\) images$/\1/p' "$TMP/two.err")
    n1=$(sed -n 's/.*device 1 (.*): \([0-9]*\) images$/\1/p' "$TMP/two.err")
    if [ -z "$n0" ] || [ -z "$n1" ] || [ $((n0 + n1)) -ne 9 ]; then
        fail "per-device image counts missing or not summing to 9: '$n0' '$n1'"
    elif [ "$n0" -eq 0 ] || [ "$n1" -eq 0 ]; then
        fail "one context took no batch: $n0 and $n1 images"
    else
        pass "the two contexts correlated $n0 and $n1 images"
    fi
fi

# Accurate mode over two contexts, to a file.
run --mode accurate --batch 2 "$S/reference.tif" "$S"/image_*.tif >"$TMP/acc1.csv" || fail "accurate, one device"
run --mode accurate --batch 2 --device "$dev,$dev" -o "$TMP/acc2.csv" "$S/reference.tif" "$S"/image_*.tif \
    && cmp -s "$TMP/acc1.csv" "$TMP/acc2.csv" && pass "accurate mode on two contexts: identical rows" \
    || fail "accurate mode on two contexts differs"

# --device all: every GPU, else every device.
run --device all "$S/reference.tif" "$S"/image_*.tif >"$TMP/all.csv" && cmp -s "$TMP/all.csv" "$TMP/one.csv" \
    && pass "--device all: identical rows" || fail "--device all differs or failed"

expect_failure "an empty name in the list" 1 "--device '$dev,': an empty name" \
    run --device "$dev," "$S/reference.tif" "$S/image_0001.tif"
expect_failure "an unknown device in the list" 1 "nosuchdevice" \
    run --device "$dev,nosuchdevice" "$S/reference.tif" "$S/image_0001.tif"
finish
