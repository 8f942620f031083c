#!/bin/sh
# offsets --grid-step: windows every S px from the margin, as many as fit,
# row by row (x, y and the count checked); the shifts come back; with
# --grid, without --window, or a window that cannot fit: usage errors.
. "$TESTS_SRCDIR/lib.sh"
need_device
# Speckle moved rigidly: image 2 by (1.3, 1.3) px.
"$CLXCORR_SAMPLES" --out "$TMP/set" --kind speckle --size 160x128 --count 2 --step 1.3 --grid 3x2 --window 32x32 \
    --margin 8 || exit 99
S=$TMP/set
run() {
    "$CLXCORR" offsets --mode seed --method fft "$@" "$S/reference.tif" "$S"/image_*.tif
}
# 160 x 128, 32 x 32 every 16 px from 8: x0 = 8 ... 120 (8), y0 = 8 ... 88 (6).
run --grid-step 16 --window 32x32 --margin 8 >"$TMP/a.csv" || fail "--grid-step 16"
awk -F, 'NR > 1 && $1 ~ /image_0001/ { n++; if ($3 != 23.5 + 16 * (($2) % 8) || $4 != 23.5 + 16 * int($2 / 8)) bad = bad " " $2 }
    END { if (n != 48 || bad != "") { print n, bad; exit 1 } }' "$TMP/a.csv" \
    && pass "--grid-step 16 --window 32x32 --margin 8: 8 x 6 windows at x = 23.5 + 16 i, y = 23.5 + 16 j" \
    || fail "--grid-step windows: $(awk -F, 'NR > 1 && NR < 12 { print $2, $3, $4 }' "$TMP/a.csv" | tr '\n' ';')"
# Every window of image 2 sees its rigid shift (accurate mode).
"$CLXCORR" offsets --grid-step 16 --window 32x32 --margin 8 "$S/reference.tif" "$S/image_0002.tif" >"$TMP/acc.csv" \
    || fail "--grid-step, accurate mode"
awk -F, 'NR > 1 { e = ($5 - 1.3) ^ 2 + ($6 - 1.3) ^ 2; if (e > worst) worst = e; n++ }
    END { printf "%d windows, worst error %.4f px\n", n, sqrt(worst); exit n != 48 || worst > 0.02 ^ 2 }' \
    "$TMP/acc.csv" >"$TMP/acc.txt" && pass "--grid-step, accurate mode: $(cat "$TMP/acc.txt")" \
    || fail "--grid-step, accurate mode: $(cat "$TMP/acc.txt")"
# Without a margin the grid starts at the border; a step of the window's
# size tiles the image.
run --grid-step 32 --window 32x32 >"$TMP/b.csv" || fail "--grid-step 32"
[ "$(awk -F, 'NR > 1 && $1 ~ /image_0001/' "$TMP/b.csv" | wc -l)" -eq 20 ] \
    && head -2 "$TMP/b.csv" | tail -1 | grep -q ',0,15.5,15.5,' \
    && pass "--grid-step 32 tiles 160 x 128 with 5 x 4 windows from (0, 0)" || fail "--grid-step 32: $(head -2 "$TMP/b.csv")"

expect_failure "--grid-step with --grid" 2 "one of --regions, --grid and --grid-step" \
    run --grid 2x2 --grid-step 16 --window 32x32
expect_failure "--grid-step without --window" 2 "--grid-step needs --window" run --grid-step 16
expect_failure "--grid-step 0" 2 "--grid-step: 0 is out of range" run --grid-step 0 --window 32x32
expect_failure "--window alone" 2 "--window is only used with --grid or --grid-step" run --window 32x32 \
    --regions "$S/regions.txt"
expect_failure "a window that cannot fit" 1 "--grid-step: no 32x32 window fits in the 160x128 image with --margin 50" \
    run --grid-step 16 --window 32x32 --margin 50
finish
