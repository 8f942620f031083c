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

# VkFFT's kernels go through the same cache (issue 36: VkFFT compiled its
# plans on every run, most of a short job's start-up on a GPU).
if "$CLXCORR" --version | grep -q vkfft; then
    rm -rf "$TMP/cache"
    vk() { run --fft vkfft --method fft -vv "$@"; }
    vk >"$TMP/vk1.csv" 2>"$TMP/vk1" && vk >"$TMP/vk2.csv" 2>"$TMP/vk2" || fail "--fft vkfft runs"
    compiled=$(grep -c "first run: compiling VkFFT's [RC2]* [0-9]*x[0-9]* float kernel" "$TMP/vk1")
    [ "$compiled" -ge 2 ] && grep -q "plan .* ready in .* (0 kernels from the kernel cache, [1-9][0-9]* compiled)" "$TMP/vk1" \
        && pass "a first VkFFT run compiles its $compiled kernels into the cache" || fail "first VkFFT run: $compiled compiled"
    ! grep -q "compiling" "$TMP/vk2" && ! grep -q "[1-9][0-9]* compiled)" "$TMP/vk2" \
        && grep -q "([1-9][0-9]* kernels from the kernel cache, 0 compiled)" "$TMP/vk2" \
        && cmp -s "$TMP/vk1.csv" "$TMP/vk2.csv" && pass "the second loads them from the cache, same output" \
        || fail "second VkFFT run: $(grep -c compiling "$TMP/vk2") compiles, $(grep "plan .* ready" "$TMP/vk2" | head -1)"
    cmp -s "$TMP/first.csv" "$TMP/vk1.csv" || awk -F, 'NR == FNR { a[FNR] = $5 " " $6; next }
        { split(a[FNR], p, " "); d = p[1] - $5; e = p[2] - $6; if (d * d + e * e > 1e-8) bad++ } END { exit bad > 0 }' \
        "$TMP/first.csv" "$TMP/vk1.csv" && pass "VkFFT runs give the default run's offsets (within 1e-4 px)" || fail "VkFFT's offsets differ from the default run's"
fi

rm -rf "$TMP/cache"
run --no-cache >"$TMP/nocache.csv" && cmp -s "$TMP/first.csv" "$TMP/nocache.csv" && pass "--no-cache, same output" \
    || fail "--no-cache"
[ ! -d "$K" ] && pass "--no-cache writes nothing" || fail "--no-cache wrote $K"
finish
