#!/bin/sh
# clxcorr strain's options of --remap and of the robust fit, each with the
# effect its help and doc/hrebsd.md give it:
# - --remap-passes N: at most N passes; stopped by it before the rotation
#   settled, the rows carry flag 16;
# - --remap-tol DEG: the passes go on until the rotation changes by less
#   (pass 1 only measures: at least 2 passes);
# - --remap-rotation: remapped by the rotation alone, so that the last
#   pass still measures the strain's shifts: other rows than --remap's,
#   with a larger residual;
# - --max-residual PX: the robust fit drops an outlying window (flag 8)
#   only where its residual exceeds PX as well as 3 x the RMS residual.
. "$TESTS_SRCDIR/lib.sh"
need_device
GEOM="--pc 0.5,0.35,0.65 --sample-tilt 70 --detector-tilt 10"
strain() {
    # shellcheck disable=SC2086
    "$CLXCORR" strain $GEOM "$@"
}

# --- --remap's passes -------------------------------------------------------------
# Two patterns rotated by up to 3 degrees and strained by up to 2e-3, the
# windows 30 px from the edge (as tests/cli_strain.sh's remapped set).
R=$TMP/r
"$CLXCORR_SAMPLES" --kikuchi --out "$R" --count 2 --rotation 3 --strain 2e-3 --seed 11 --margin 30 >/dev/null 2>&1 \
    || exit 99
# remap NAME OPTIONS...: the rows in $TMP/NAME.csv, the pass lines of -v in $TMP/NAME.passes.
remap() {
    name=$1
    shift
    strain -v --regions "$R/regions.txt" "$@" -o "$TMP/$name.csv" "$R/reference.tif" "$R"/image_000[12].tif \
        2>"$TMP/$name.err" || fail "$name: $(grep error: "$TMP/$name.err")"
    grep -o -- '--remap pass [0-9]* of at most [0-9]*: [0-9]* of 2 patterns settled (rotation changed by less than [0-9.e+-]* degree)' \
        "$TMP/$name.err" >"$TMP/$name.passes"
}
# flags NAME: the rows' flags, space-separated.
flags() {
    awk -F, 'NR > 1 { printf "%s%s", sep, $13; sep = " " }' "$TMP/$1.csv"
}
remap default --remap
remap passes1 --remap --remap-passes 1
remap passes3 --remap --remap-passes 3 --remap-tol 1e-6
remap tol --remap --remap-tol 1e-6
remap tol5 --remap --remap-tol 5
remap rotation --remap-rotation
# The defaults (0.01 degree, 4 passes): settled at pass 2 (measured), flags 4 (deviatoric).
[ "$(wc -l <"$TMP/default.passes")" -eq 2 ] && grep -q "pass 2 of at most 4: 2 of 2 patterns settled" "$TMP/default.passes" \
    && [ "$(flags default)" = "4 4" ] && pass "--remap: 2 passes of at most 4, both patterns settled, flags 4" \
    || fail "--remap: $(cat "$TMP/default.passes"); flags $(flags default)"
[ "$(wc -l <"$TMP/passes1.passes")" -eq 1 ] && grep -q "pass 1 of at most 1:" "$TMP/passes1.passes" \
    && [ "$(flags passes1)" = "20 20" ] \
    && pass "--remap-passes 1: one pass, the rotation not settled: flags 20 (16 + 4)" \
    || fail "--remap-passes 1: $(cat "$TMP/passes1.passes"); flags $(flags passes1)"
[ "$(wc -l <"$TMP/passes3.passes")" -eq 3 ] && grep -q "pass 3 of at most 3: 0 of 2 patterns settled (rotation changed by less than 1e-06 degree)" \
    "$TMP/passes3.passes" && [ "$(flags passes3)" = "20 20" ] \
    && pass "--remap-passes 3 --remap-tol 1e-6: 3 passes, none settled, flags 20" \
    || fail "--remap-passes 3 --remap-tol 1e-6: $(cat "$TMP/passes3.passes"); flags $(flags passes3)"
# A tolerance of 1e-6 degree keeps passing where 0.01 stopped at 2; one of
# 5 degrees stops as soon as it may (pass 2: pass 1 only measures).
[ "$(wc -l <"$TMP/tol.passes")" -gt 2 ] && grep -q "less than 1e-06 degree" "$TMP/tol.passes" \
    && pass "--remap-tol 1e-6: $(wc -l <"$TMP/tol.passes") passes (2 with the default 0.01)" \
    || fail "--remap-tol 1e-6: $(cat "$TMP/tol.passes")"
[ "$(wc -l <"$TMP/tol5.passes")" -eq 2 ] && grep -q "pass 1 of at most 4: 2 of 2 patterns settled (rotation changed by less than 5 degree)" \
    "$TMP/tol5.passes" && [ "$(flags tol5)" = "4 4" ] \
    && pass "--remap-tol 5: both settled at pass 1, stopped at pass 2" || fail "--remap-tol 5: $(cat "$TMP/tol5.passes")"
# --remap-rotation: the same passes, other rows (measured up to 1e-5 apart),
# and the strain's shifts left in the last pass: its residual 3 times
# --remap's (0.0018 and 0.0030 px against 0.0006 and 0.0009, measured).
[ "$(wc -l <"$TMP/rotation.passes")" -ge 2 ] && [ "$(flags rotation)" = "4 4" ] \
    && paste -d, "$TMP/default.csv" "$TMP/rotation.csv" | awk -F, 'NR > 1 {
        for (k = 2; k <= 10; k++) { d = $k - $(k + 13); if (d < 0) d = -d; if (d > apart) apart = d }
        if (!($(11 + 13) > 1.5 * $11)) small = 1 }
        END { printf "rows up to %.2g apart", apart; exit small || !(apart > 2e-6) }' >"$TMP/rot.txt" \
    && pass "--remap-rotation: $(cat "$TMP/rot.txt"); residuals $(cut -d, -f11 "$TMP/rotation.csv" | tail -2 | tr '\n' ' ')px against --remap's $(cut -d, -f11 "$TMP/default.csv" | tail -2 | tr '\n' ' ')" \
    || fail "--remap-rotation: $(cat "$TMP/rot.txt"); rows $(cat "$TMP/rotation.csv") against $(cat "$TMP/default.csv")"

# --- --max-residual ------------------------------------------------------------------
# tests/cli_strain.sh's pure strain (1e-3); in pattern 1, window 10's
# pixels are replaced by those 3 px right and 2 px down of it: one window
# that correlates well at the wrong shift.
P=$TMP/p
"$CLXCORR_SAMPLES" --kikuchi --out "$P" --count 3 --deform 1e-3,2e-4,-3e-4,2e-4,-5e-4,4e-4,-3e-4,4e-4,2e-4 \
    >/dev/null 2>&1 || exit 99
set -- $(grep -v '^#' "$P/regions.txt" | sed -n 11p)
"$IMGTOOL" paste "$P/bad.tif" "$P/image_0001.tif" "$P/image_0001.tif" "$1" "$2" "$3" "$4" $(($1 + 3)) $(($2 + 2)) || exit 99
# robust NAME OPTIONS...: the rows in $TMP/NAME.csv and their deviatoric error (RMS against the truth) in $TMP/NAME.rms.
robust() {
    name=$1
    shift
    strain -q --regions "$P/regions.txt" "$@" -o "$TMP/$name.csv" "$P/reference.tif" "$P/bad.tif" "$P/image_0002.tif" \
        "$P/image_0003.tif" || fail "$name"
    awk -F, 'NR == FNR { if (FNR > 1) { for (k = 0; k < 6; k++) t[FNR, k] = $(11 + k) } next }
        FNR > 1 { for (k = 0; k < 6; k++) { d = $(2 + k) - t[FNR, k]; s += d * d; n++ } }
        END { printf "%.3g\n", n ? sqrt(s / n) : 1 }' "$P/truth.csv" "$TMP/$name.csv" >"$TMP/$name.rms"
}
# column NAME ROW FIELD
column() {
    sed -n "$(($2 + 1))p" "$TMP/$1.csv" | cut -d, -f"$3"
}
robust default
robust loose --max-residual 100
robust tight --max-residual 0.001
# The default (0.1 px): the outlier dropped (flag 8), the strain as without
# it (1.65e-6 RMS measured, the clean patterns' figure; bound 5e-6).
if [ $(($(column default 1 13) & 8)) -ne 8 ] || [ $(($(column default 2 13) & 8)) -ne 0 ]; then
    fail "--max-residual 0.1 (default): flags $(cut -d, -f13 "$TMP/default.csv" | tr '\n' ' ')"
elif ! awk -v e="$(cat "$TMP/default.rms")" 'BEGIN { exit !(e < 5e-6) }'; then
    fail "--max-residual 0.1 (default): the outlier dropped, but the strain is $(cat "$TMP/default.rms") RMS off"
else
    pass "--max-residual 0.1 (default): the outlier dropped (flags $(column default 1 13), $(column default 1 12) windows), strain $(cat "$TMP/default.rms") RMS off (bound 5e-6)"
fi
# 100 px: above the outlier's misfit, so it stays; the fit pays for it
# (0.66 px residual and 8.3e-4 RMS measured).
if [ $(($(column loose 1 13) & 8)) -ne 0 ] || [ "$(column loose 1 12)" -le "$(column default 1 12)" ]; then
    fail "--max-residual 100: flags $(column loose 1 13), $(column loose 1 12) windows: the outlier was dropped"
elif ! awk -v r="$(column loose 1 11)" -v e="$(cat "$TMP/loose.rms")" 'BEGIN { exit !(r > 0.1 && e > 1e-4) }'; then
    fail "--max-residual 100: residual $(column loose 1 11) px, strain $(cat "$TMP/loose.rms") RMS off: the outlier made no difference"
else
    pass "--max-residual 100: the outlier kept ($(column loose 1 12) windows, residual $(column loose 1 11) px), strain $(cat "$TMP/loose.rms") RMS off"
fi
# 0.001 px: below the clean patterns' own residuals (0.0006 px), so the
# 3 x RMS rule alone decides: they lose windows too (flag 8).
[ $(($(column tight 2 13) & 8)) -eq 8 ] && [ $(($(column tight 3 13) & 8)) -eq 8 ] \
    && [ "$(column tight 2 12)" -lt "$(column default 2 12)" ] \
    && pass "--max-residual 0.001: the clean patterns lose windows too ($(column tight 2 12) and $(column tight 3 12) of $(column default 2 12))" \
    || fail "--max-residual 0.001: clean patterns' flags $(column tight 2 13) $(column tight 3 13), windows $(column tight 2 12) $(column tight 3 12)"
finish
