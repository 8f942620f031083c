#!/bin/sh
# The compiled-kernel cache: binaries are written under
# $XDG_CACHE_HOME/clxcorr/kernels, reused, survive corruption (rebuilt,
# same results), and --no-cache neither reads nor writes them; a first run
# says what it compiles.
. "$TESTS_SRCDIR/lib.sh"
# clxcorr's caches start empty below, PoCL's compiler cache stays where it is:
# an XDG_CACHE_HOME of the test's own would move PoCL's too, and every run
# would compile every kernel from source, minutes on two cores (issue 37).
POCL_CACHE_DIR=${POCL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pocl}
export POCL_CACHE_DIR
need_device
make_small_set "$TMP/set" 1
S=$TMP/set
run() {
    XDG_CACHE_HOME=$TMP/cache "$CLXCORR" offsets --regions "$S/regions.txt" "$@" "$S/reference.tif" "$S/image_0001.tif"
}
K=$TMP/cache/clxcorr/kernels

run >"$TMP/first.csv" || fail "first run"
n=$(ls "$K"/*.bin 2>/dev/null | wc -l)
[ "$n" -ge 5 ] && pass "$n kernel binaries cached" || fail "$n binaries in $K"
run >"$TMP/second.csv" && cmp -s "$TMP/first.csv" "$TMP/second.csv" && pass "cached run, same output" || fail "cached run"

for f in "$K"/*.bin; do head -c 100 "$f" >"$f.cut" && mv "$f.cut" "$f"; done
run >"$TMP/truncated.csv" && cmp -s "$TMP/first.csv" "$TMP/truncated.csv" && pass "truncated binaries: rebuilt, same output" \
    || fail "truncated binaries"
small=$(find "$K" -name '*.bin' -size -1k | wc -l)
[ "$small" -eq 0 ] && pass "truncated binaries replaced" || fail "$small binaries still truncated"
for f in "$K"/*.bin; do printf 'garbage' | dd of="$f" bs=1 seek=200 conv=notrunc 2>/dev/null; done
run >"$TMP/garbage.csv" && cmp -s "$TMP/first.csv" "$TMP/garbage.csv" && pass "corrupted binaries: rebuilt, same output" \
    || fail "corrupted binaries"

# What makes a first run slower is said (-v: as lines; on a terminal, the
# status line), and a cached run compiles nothing.
rm -rf "$TMP/cache"
run -v >/dev/null 2>"$TMP/v1" && run -v >/dev/null 2>"$TMP/v2" || fail "-v runs"
grep -q "first run: compiling [a-z_]*\.cl for this device (later runs load it from the kernel cache)" "$TMP/v1" &&
    ! grep -q "compiling" "$TMP/v2" && pass "the first run says what it compiles; the second compiles nothing" \
    || fail "first-run lines: $(grep -c compiling "$TMP/v1") then $(grep -c compiling "$TMP/v2")"

rm -rf "$TMP/cache"
run --no-cache >"$TMP/nocache.csv" && cmp -s "$TMP/first.csv" "$TMP/nocache.csv" && pass "--no-cache, same output" \
    || fail "--no-cache"
[ ! -d "$K" ] && pass "--no-cache writes nothing" || fail "--no-cache wrote $K"
finish
