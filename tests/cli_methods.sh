#!/bin/sh
# FFT and direct paths on the command line: both give the host reference's
# offsets on the sample set (full and bounded search), --max-shift flags a
# peak on the bound, --explain says what auto chose and caches it, and
# --method / --param values are checked.
. "$TESTS_SRCDIR/lib.sh"
# clxcorr's caches start empty below, PoCL's compiler cache stays where it is:
# an XDG_CACHE_HOME of the test's own would move PoCL's too, and every run
# would compile every kernel from source, minutes on two cores (issue 37).
POCL_CACHE_DIR=${POCL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pocl}
export POCL_CACHE_DIR
need_device

"$CLXCORR_SAMPLES" --out "$TMP/set" --count 6 || exit 99
S=$TMP/set
one="$S/reference.tif $S/image_0001.tif"
all="$S/reference.tif $(ls "$S"/image_*.tif | tr '\n' ' ')"
# shellcheck disable=SC2086
{
    "$CLXCORR_REF" --regions "$S/regions.txt" $one >"$TMP/ref1.csv" &&
    "$CLXCORR" offsets --mode seed --method fft --regions "$S/regions.txt" $one >"$TMP/fft1.csv" &&
    "$CLXCORR" offsets --mode seed --method direct --regions "$S/regions.txt" $one >"$TMP/direct1.csv"
} || fail "full-range runs failed"
compare_csv "sample set, full search: direct vs fft" "$TMP/direct1.csv" "$TMP/fft1.csv" 1e-3
compare_csv "sample set, full search: direct vs host reference" "$TMP/direct1.csv" "$TMP/ref1.csv" 1e-3

# shellcheck disable=SC2086
{
    "$CLXCORR_REF" --max-shift 8 --regions "$S/regions.txt" $all >"$TMP/ref8.csv" &&
    "$CLXCORR" offsets --mode seed --method fft --max-shift 8 --regions "$S/regions.txt" $all >"$TMP/fft8.csv" &&
    "$CLXCORR" offsets --mode seed --method direct --max-shift 8 --regions "$S/regions.txt" $all >"$TMP/direct8.csv"
} || fail "bounded runs failed"
compare_csv "sample set, --max-shift 8: direct vs fft" "$TMP/direct8.csv" "$TMP/fft8.csv" 1e-3
compare_csv "sample set, --max-shift 8: fft vs host reference" "$TMP/fft8.csv" "$TMP/ref8.csv" 1e-3

# A bound below the true shifts: peaks land on it and are flagged.
# shellcheck disable=SC2086
"$CLXCORR" offsets --mode seed --method direct --max-shift 1 --regions "$S/regions.txt" $all >"$TMP/direct1px.csv" &&
    "$CLXCORR_REF" --max-shift 1 --regions "$S/regions.txt" $all >"$TMP/ref1px.csv" || fail "--max-shift 1 runs"
compare_csv "--max-shift 1 vs host reference (flags included)" "$TMP/direct1px.csv" "$TMP/ref1px.csv" 1e-3
edge=$(awk -F, 'NR > 1 && int($8 / 2) % 2 == 1' "$TMP/direct1px.csv" | wc -l)
[ "$edge" -gt 0 ] && pass "$edge windows flagged 2 (peak on the bound)" || fail "no peak flagged on the bound"
awk -F, 'NR > 1 { dx = $5 < 0 ? -$5 : $5; dy = $6 < 0 ? -$6 : $6; if (dx > 1 + 2 || dy > 1 + 2) bad++ } END { exit bad }' \
    "$TMP/direct1px.csv" && pass "offsets stay within the bound plus the fit" || fail "offsets beyond the bound"

# --explain and the method cache.
# shellcheck disable=SC2086
XDG_CACHE_HOME=$TMP/cache "$CLXCORR" offsets --explain --max-shift 4 --regions "$S/regions.txt" $one \
    >/dev/null 2>"$TMP/explain1" &&
    XDG_CACHE_HOME=$TMP/cache "$CLXCORR" offsets --explain --max-shift 4 --regions "$S/regions.txt" $one \
    >/dev/null 2>"$TMP/explain2" || fail "--explain runs"
grep -q "method: auto chose \(fft\|direct\): .* ms per window against .*(measured now on" "$TMP/explain1" \
    && pass "--explain: $(cat "$TMP/explain1")" || fail "--explain: $(cat "$TMP/explain1")"
grep -q "measured earlier" "$TMP/explain2" && [ -s "$TMP/cache/clxcorr/methods.tsv" ] \
    && pass "the second run reads the cached measurement" || fail "method cache: $(cat "$TMP/explain2")"
# Every shift of 100 x 100 windows: the direct path would need 120 multiply-adds
# per FFT operation; auto takes the FFT path unmeasured and caches nothing.
# shellcheck disable=SC2086
XDG_CACHE_HOME=$TMP/cache-full "$CLXCORR" offsets --explain --mode seed --regions "$S/regions.txt" $one \
    >/dev/null 2>"$TMP/explain3" || fail "--explain runs (full search)"
grep -q "method: auto chose fft without measuring: for 100x100 windows with shifts up to 99 x 99, direct correlation needs 120 multiply-adds per FFT operation" "$TMP/explain3" &&
    [ ! -s "$TMP/cache-full/clxcorr/methods.tsv" ] \
    && pass "full search of 100 x 100 windows: fft, unmeasured" || fail "full search: $(grep method: "$TMP/explain3")"
# shellcheck disable=SC2086
"$CLXCORR" offsets --explain --method fft --regions "$S/regions.txt" $one 2>&1 >/dev/null | grep -q "method: fft, as asked" \
    && pass "--explain with --method fft" || fail "--explain with --method fft"
# --explain lists every --param key with its value and origin: the direct path
# sizes its kernel for the job, a --param value says so.
# shellcheck disable=SC2086
"$CLXCORR" offsets --mode seed --explain --method direct --max-shift 4 --param direct_split=3 --regions "$S/regions.txt" \
    $one 2>"$TMP/explain3" >/dev/null || fail "--explain with --param"
grep -q "^clxcorr:   direct_split=3 (--param) " "$TMP/explain3" && grep -q "^clxcorr:   sums_wg=[0-9]* (default) " "$TMP/explain3" \
    && grep -q "^clxcorr:   fft=[a-z]* (default) " "$TMP/explain3" && [ "$(grep -c '^clxcorr:   [a-z_]*=' "$TMP/explain3")" -ge 27 ] \
    && pass "--explain lists the kernel parameters with their origins" \
    || fail "--explain's parameter listing: $(cat "$TMP/explain3")"

# Tuning overrides.
# shellcheck disable=SC2086
"$CLXCORR" offsets --mode seed --method direct --max-shift 8 --param direct_split=3 --param direct_ipi=2 \
    --regions "$S/regions.txt" $all >"$TMP/param.csv" || fail "--param run"
compare_csv "--param direct_split=3 --param direct_ipi=2" "$TMP/param.csv" "$TMP/fft8.csv" 1e-3
expect_failure "unknown --param key" 1 "unknown parameter 'bogus' \\(known: sums_wg argmax_wg" \
    "$CLXCORR" offsets --param bogus=1 --regions "$S/regions.txt" $one
expect_failure "bad --param value" 1 "parameter argmax_wg=100: expected a power of two" \
    "$CLXCORR" offsets --param argmax_wg=100 --regions "$S/regions.txt" $one
expect_failure "--param without =" 2 "--param: expected KEY=VALUE" \
    "$CLXCORR" offsets --param direct_split --regions "$S/regions.txt" $one
expect_failure "unknown method" 2 "--method: unknown method 'magic'" \
    "$CLXCORR" offsets --method magic --regions "$S/regions.txt" $one
expect_failure "--max-shift 0" 2 "--max-shift: 0 is out of range" \
    "$CLXCORR" offsets --max-shift 0 --regions "$S/regions.txt" $one
finish
