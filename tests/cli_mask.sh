#!/bin/sh
# offsets --mask, --mask-max: windows whose masked fraction (pixels of value
# 0 in the mask) is above the threshold are not measured; their rows stay in
# window order with nan offsets and flag 128, and the measured rows are the
# unmasked run's. A mask of another size, one that masks everything, and
# --mask-max alone are refused.
. "$TESTS_SRCDIR/lib.sh"
need_device
"$CLXCORR_SAMPLES" --out "$TMP/set" --kind speckle --size 160x128 --count 2 --step 1.3 --grid 3x2 --window 32x32 \
    --margin 8 || exit 99
S=$TMP/set
# pgm W H LEFT: a binary PGM, the LEFT columns 0 (masked), the others 255.
pgm() {
    {
        printf 'P5\n%d %d\n255\n' "$1" "$2"
        for _ in $(seq "$2"); do
            head -c "$3" /dev/zero
            head -c $(($1 - $3)) /dev/zero | tr '\0' '\377'
        done
    } >"$TMP/mask_$1_$3.pgm"
}
pgm 160 128 80
pgm 160 128 160
pgm 16 16 8
run() {
    "$CLXCORR" offsets --method fft --grid-step 16 --window 32x32 --margin 8 "$@" "$S/reference.tif" \
        "$S"/image_*.tif
}
run >"$TMP/all.csv" || fail "the unmasked run"
# 32-px windows from x0 = 8, 24, ..., 120 over a mask of x < 80: fractions
# 1, 1, 1, 0.75, 0.25, 0, 0, 0 column by column.
check_mask() {
    name=$1 masked_columns=$2
    shift 2
    run "$@" >"$TMP/m.csv" || { fail "$name: exit status $?"; return; }
    paste -d, "$TMP/m.csv" "$TMP/all.csv" | awk -F, -v cols="$masked_columns" '
        NR == 1 { for (i = 1; i <= NF; i++) if (!(i in col)) col[$i] = i; n = NF / 2; next }
        { c = $2 % 8; masked = c < cols
          if ($2 != $(n + 2) || $1 != $(n + 1)) { print "row order differs at " NR; bad = 1 }
          else if (masked && ($5 != "nan" || $6 != "nan" || $7 != "nan" || $8 != 128)) { print "window " $2 ": " $5, $6, $8; bad = 1 }
          else if (!masked && ($5 != $(n + 5) || $6 != $(n + 6) || $8 >= 128)) { print "window " $2 ": " $5, $6, " vs " $(n + 5), $(n + 6); bad = 1 }
          left += masked; rows++ }
        END { printf "%d of %d rows masked", left, rows; exit bad || rows != 96 }' >"$TMP/check" \
        && pass "$name: $(cat "$TMP/check"), in window order; the others the unmasked run's" \
        || fail "$name: $(head -3 "$TMP/check")"
}
check_mask "--mask (default --mask-max 0.5)" 4 --mask "$TMP/mask_160_80.pgm"
check_mask "--mask-max 0.8" 3 --mask "$TMP/mask_160_80.pgm" --mask-max 0.8
check_mask "--mask-max 0" 5 --mask "$TMP/mask_160_80.pgm" --mask-max 0
run --mask "$TMP/mask_160_80.pgm" --format jsonl | head -1 | grep -q '"dx":null,"dy":null,"peak":null,"flags":128' \
    && pass "--mask with JSON lines: null offsets, flags 128" || fail "--mask, JSON lines: $(run --mask "$TMP/mask_160_80.pgm" --format jsonl | head -1)"

expect_failure "a mask of another size" 1 "--mask: .*mask_16_8.pgm is 16x16, the reference 160x128" \
    run --mask "$TMP/mask_16_8.pgm"
expect_failure "a mask that leaves no window" 1 "--mask: .*leaves no window to measure" run --mask "$TMP/mask_160_160.pgm"
expect_failure "a missing mask" 1 "--mask: .*nothere.pgm" run --mask "$TMP/nothere.pgm"
expect_failure "--mask-max alone" 2 "--mask-max sets the threshold of --mask FILE" run --mask-max 0.3
expect_failure "--mask-max 2" 2 "--mask-max: '2' is not a number from 0 to 1" run --mask "$TMP/mask_160_80.pgm" \
    --mask-max 2
finish
