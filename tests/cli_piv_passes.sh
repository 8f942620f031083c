#!/bin/sh
# PIV's deforming passes through the command (offsets --reference pairs
# with a window per pass), on clxcorr-samples' Lamb-Oseen vortex pairs of
# 320 x 320 (core radius 48 px, 5 px at the peak):
# - three passes (48,32,32) on a 16 px grid measure frame A's
#   displacement within 0.03 px rms, a third of one 32 px pass's error or
#   less (0.021 against 0.079 px when written);
# - --passes 3 --window 32 (the size repeated) runs three passes too, and
#   as well as 64,32,32 where displacements reach 10 px (uniform flow of
#   (9, -4) px, 0.008 particles per px as OpenPIV's synimagegen makes
#   them): 0.110 against 0.106 px rms when written; the first pass used to
#   weight its 32 px windows by Hann's and lose them (1.67 px);
# - every row of every pair, in input order, flags 8 and 256 together;
# - --keep-outliers: no vector replaced;
# - the refusals, each one line, naming what was asked and the way to it.
. "$TESTS_SRCDIR/lib.sh"
need_device

"$CLXCORR_SAMPLES" --out "$TMP/v" --piv vortex --size 320x320 --count 2 --core-radius 48 --peak-speed 5 \
    --grid-step 16 --window 32x32 >/dev/null 2>&1 || exit 99
S=$TMP/v
pairs="$S/frameA_0001.tif $S/frameB_0001.tif $S/frameA_0002.tif $S/frameB_0002.tif"
piv() {
    # shellcheck disable=SC2086
    "$CLXCORR" offsets -q --reference pairs --grid-step 16 "$@" $pairs
}

# The rms error of OUT.csv's rows against the truth (TRUTH, default the
# vortex's), every pair, matched by image and region.
rms() {
    awk -F, 'FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        FILENAME == ARGV[1] { n = split($col["image"], p, "/"); k = p[n] "," $col["region"]
                              tx[k] = $col["dx"]; ty[k] = $col["dy"]; next }
        { n = split($col["image"], p, "/"); k = p[n] "," $col["region"]
          if (!(k in tx)) { missing++; next }
          s += ($col["dx"] - tx[k]) ^ 2 + ($col["dy"] - ty[k]) ^ 2; m++ }
        END { if (missing || !m) print "nan"; else printf "%.5f\n", sqrt(s / m) }' "${2:-$S/truth_field.csv}" "$1"
}

piv --window 32x32 >"$TMP/one.csv" || fail "one pass failed"
piv --window 48,32,32 >"$TMP/three.csv" || fail "three passes failed"
one=$(rms "$TMP/one.csv") three=$(rms "$TMP/three.csv")
awk -v a="$three" -v b="$one" 'BEGIN { exit !(a <= 0.03 && a * 3 <= b) }' \
    && pass "three passes: rms $three px (one pass: $one px)" \
    || fail "three passes: rms $three px against one pass's $one px"
[ "$(awk 'END { print NR }' "$TMP/three.csv")" -eq $((2 * 361 + 1)) ] \
    && pass "three passes: 361 rows per pair" || fail "three passes: $(awk 'END { print NR }' "$TMP/three.csv") lines"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    { f = $col["flags"]; if (int(f / 256) % 2 != int(f / 8) % 2) bad++ }
    END { exit bad > 0 }' "$TMP/three.csv" \
    && pass "flags 8 and 256 come together" || fail "a vector flagged 8 without 256, or 256 without 8"

piv --window 32 --passes 3 >"$TMP/repeat.csv" || fail "--passes 3 --window 32 failed"
r=$(rms "$TMP/repeat.csv")
awk -v a="$r" -v b="$one" 'BEGIN { exit !(a * 2 <= b) }' \
    && pass "--passes 3 --window 32: rms $r px" || fail "--passes 3 --window 32: rms $r px (one pass $one)"

"$CLXCORR_SAMPLES" --out "$TMP/u" --piv uniform --size 256x256 --velocity 9,-4 --density 0.008 \
    --grid-step 16 --window 32x32 >/dev/null 2>&1 || exit 99
U="$TMP/u/frameA_0001.tif $TMP/u/frameB_0001.tif"
# shellcheck disable=SC2086
"$CLXCORR" offsets -q --reference pairs --grid-step 16 --window 64,32,32 $U >"$TMP/far64.csv" \
    || fail "10 px: 64,32,32 failed"
# shellcheck disable=SC2086
"$CLXCORR" offsets -q --reference pairs --grid-step 16 --window 32 --passes 3 $U >"$TMP/far32.csv" \
    || fail "10 px: --passes 3 --window 32 failed"
a=$(rms "$TMP/far32.csv" "$TMP/u/truth_field.csv") b=$(rms "$TMP/far64.csv" "$TMP/u/truth_field.csv")
awk -v a="$a" -v b="$b" 'BEGIN { exit !(a <= 0.33 && a <= 1.5 * b) }' \
    && pass "10 px: --passes 3 --window 32 at rms $a px, 64,32,32 at $b px" \
    || fail "10 px: --passes 3 --window 32 at rms $a px against 64,32,32's $b px"

piv --window 48,32,32 --keep-outliers --median-threshold 0.5 >"$TMP/kept.csv" || fail "--keep-outliers failed"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    { f = $col["flags"]; if (int(f / 256) % 2) replaced++; if (int(f / 8) % 2) outliers++ }
    END { exit !(replaced == 0 && outliers > 0) }' "$TMP/kept.csv" \
    && pass "--keep-outliers: outliers flagged 8, none replaced" || fail "--keep-outliers: replaced vectors or no outlier"

# Refusals.
A=$S/frameA_0001.tif B=$S/frameB_0001.tif
expect_failure "a window list without pairs" 2 "a window per pass is for the deforming passes of --reference pairs" \
    "$CLXCORR" offsets --grid-step 16 --window 48,32 "$A" "$B"
expect_failure "validation without pairs" 2 "--min-zncc validates the deforming passes of --reference pairs" \
    "$CLXCORR" offsets --grid-step 16 --window 32x32 --min-zncc 0.5 "$A" "$B"
expect_failure "--keep-outliers without pairs" 2 "--keep-outliers keeps the outliers of the deforming passes" \
    "$CLXCORR" offsets --grid-step 16 --window 32x32 --keep-outliers "$A" "$B"
# The layouts the passes refuse, said as such (not "--window is only used
# with --grid or --grid-step", which led to --grid, refused in turn).
expect_failure "passes on --regions" 2 \
    "^clxcorr: error: --window 64,32,32: PIV's deforming passes measure on a --grid-step grid, not on the windows of --regions $S/regions.txt: give --grid-step S instead\$" \
    "$CLXCORR" offsets --reference pairs --regions "$S/regions.txt" --window 64,32,32 "$A" "$B"
expect_failure "--passes on --regions" 2 "^clxcorr: error: --passes 3: .* not on the windows of --regions" \
    "$CLXCORR" offsets --reference pairs --regions "$S/regions.txt" --window 32 --passes 3 "$A" "$B"
expect_failure "passes on --grid" 2 "^clxcorr: error: --window 48,32: .* not on --grid 4x4: give --grid-step S instead" \
    "$CLXCORR" offsets --reference pairs --grid 4x4 --window 48,32 "$A" "$B"
expect_failure "--passes on --grid without --window" 2 "^clxcorr: error: --passes 3: .* not on --grid 4x4" \
    "$CLXCORR" offsets --reference pairs --grid 4x4 --passes 3 "$A" "$B"
expect_failure "passes without a layout" 2 "^clxcorr: error: --window 64,32,32: .* give --grid-step S\$" \
    "$CLXCORR" offsets --reference pairs --window 64,32,32 "$A" "$B"
expect_failure "--grid-step without --window" 2 \
    "^clxcorr: error: --median-threshold: PIV's deforming passes need --window with --grid-step: one size \(32\) or one per pass" \
    "$CLXCORR" offsets --reference pairs --grid-step 16 --median-threshold 3 "$A" "$B"
expect_failure "passes with --mask" 2 "do not combine with --mask" \
    "$CLXCORR" offsets --reference pairs --grid-step 16 --window 48,32 --mask "$A" "$A" "$B"
expect_failure "fewer passes than windows" 2 "--passes 2 with --window's 3 windows" \
    "$CLXCORR" offsets --reference pairs --grid-step 16 --window 48,32,32 --passes 2 "$A" "$B"
expect_failure "growing windows" 2 "no larger than the one before" \
    "$CLXCORR" offsets --reference pairs --grid-step 16 --window 32,48 "$A" "$B"
expect_failure "a window list elsewhere" 2 "one WxH window here" \
    "$CLXCORR" correlate --grid-step 16 --window 48,32 -o "$TMP/c.tif" "$A" "$B"
finish
