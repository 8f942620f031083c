#!/bin/sh
# clxcorr strain on synthetic Kikuchi-sphere patterns (clxcorr-samples
# --kikuchi, doc/hrebsd-conventions.md), whose deformation is known exactly:
# a pure strain of 1e-3 comes back within 5e-6 (RMS over the patterns'
# deviatoric components), a rotation of up to 3 degrees with --remap leaves
# less than 9e-6 of phantom strain and its rotation vector within 1.7e-5
# rad (each three times what PoCL measures), the
# traction-free strain has the right mean, with the orientation from
# --euler or from an .ang or .ctf file (--orientations), rows carry the
# scan columns of a pattern file; missing geometry, too few windows,
# windows on a line, a bad stiffness and a bad or mismatched orientation
# file are one line each and no rows.
. "$TESTS_SRCDIR/lib.sh"
need_device

S=$TMP/k
GEOM="--pc 0.5,0.35,0.65 --sample-tilt 70 --detector-tilt 10"
# The columns every run has: with a known reference orientation (--euler,
# --orientations) strain adds the refined one (phi1, Phi, phi2), which the
# comparisons below leave out.
CLASSIC="--columns image,e11,e12,e13,e22,e23,e33,w1,w2,w3,residual,windows,flags"
strain() {
    "$CLXCORR" strain -q "$@"
}

# RMS of (measured - true) deviatoric strain over components and patterns:
# $1 truth.csv, $2 the strain CSV (rows in the same order). The truth's
# e columns are dev(sym(beta_s)), the fit's 3 U / tr U - I: the same to
# 1e-6 for the strains here (no rotation).
strain_rms() {
    awk -F, 'NR == FNR { if (FNR > 1) { for (k = 0; k < 6; k++) t[FNR, k] = $(11 + k) } next }
        FNR > 1 { for (k = 0; k < 6; k++) { d = $(2 + k) - t[FNR, k]; s += d * d; n++ } }
        END { printf "%.3g\n", n ? sqrt(s / n) : 1 }' "$1" "$2"
}

# --- a pure strain -----------------------------------------------------------
"$CLXCORR_SAMPLES" --kikuchi --out "$S" --count 3 --deform 1e-3,2e-4,-3e-4,2e-4,-5e-4,4e-4,-3e-4,4e-4,2e-4 \
    >/dev/null 2>&1 || exit 99
strain $GEOM --regions "$S/regions.txt" --explain --meta "$TMP/pure.json" -o "$TMP/pure.csv" "$S/reference.tif" \
    "$S"/image_000[1-3].tif 2>"$TMP/pure.err" || fail "strain of a pure strain"
# The fit's time is measured: --explain says it, --meta has it and its share.
grep -q "^clxcorr: strain fit: .* s on the host (summed over [0-9]* lanes\{0,1\}), .* % of the run's" "$TMP/pure.err" \
    && pass "--explain: $(grep 'strain fit:' "$TMP/pure.err")" || fail "--explain: no fit time: $(cat "$TMP/pure.err")"
tr -d ' \n' <"$TMP/pure.json" | awk '{ fit = share = -1
        if (match($0, /"strain_fit":[0-9.e+-]+/)) fit = substr($0, RSTART + 13, RLENGTH - 13) + 0
        if (match($0, /"strain_fit_share":[0-9.e+-]+/)) share = substr($0, RSTART + 19, RLENGTH - 19) + 0
        printf "seconds.strain_fit %s, strain_fit_share %s\n", fit, share; exit !(fit > 0 && share > 0 && share < 1) }' \
    >"$TMP/fit.txt" && pass "--meta: $(cat "$TMP/fit.txt")" || fail "--meta: $(cat "$TMP/fit.txt") in $(cat "$TMP/pure.json")"
head -1 "$TMP/pure.csv" | grep -qx 'image,e11,e12,e13,e22,e23,e33,w1,w2,w3,residual,windows,flags' \
    && pass "columns: $(head -1 "$TMP/pure.csv")" || fail "header: $(head -1 "$TMP/pure.csv")"
rms=$(strain_rms "$S/truth.csv" "$TMP/pure.csv")
# Measured 1.67e-6 (PoCL); bound three times that.
awk -v e="$rms" 'BEGIN { exit !(e < 5e-6) }' && pass "pure strain 1e-3: deviatoric error $rms RMS (bound 5e-6)" \
    || fail "pure strain: deviatoric error $rms RMS (bound 5e-6)"
awk -F, 'NR > 1 && !($12 == 25 && $13 == 4) { bad = 1 } END { exit bad }' "$TMP/pure.csv" \
    && pass "every pattern: 25 windows, flags 4 (deviatoric)" || fail "windows/flags: $(sed -n 2p "$TMP/pure.csv")"

# --- traction-free: the mean strain that makes sigma_33 = 0 ----------------
# With g = I (Euler 0,0,0) a cubic crystal's sigma_33 = C12 (e11 + e22) + C11 e33, zero to the
# rows' 7 significant digits (terms of 1e-3 GPa: 1e-8).
strain $GEOM $CLASSIC --regions "$S/regions.txt" --stiffness cubic:165.7,63.9,79.6 --euler 0,0,0 "$S/reference.tif" \
    "$S/image_0001.tif" >"$TMP/full.csv" || fail "strain --stiffness"
awk -F, 'NR == 2 { s33 = 63.9 * ($2 + $5) + 165.7 * $7; exit !($13 == 0 && s33 < 1e-8 && s33 > -1e-8) }' \
    "$TMP/full.csv" && pass "--stiffness: flags 0 and sigma_33 = 0: $(sed -n 2p "$TMP/full.csv" | cut -d, -f2,5,7)" \
    || fail "--stiffness: $(sed -n 2p "$TMP/full.csv")"

# --- orientations from an .ang or .ctf file ----------------------------------------
# The generator's crystal is at Bunge (30, 40, 50) degrees: a file giving it
# to every pattern gives --euler's rows. In the .ctf (degrees, matched by
# scan point with --scan-cols) the third point was not indexed: its pattern
# stays deviatoric. Oxford's sample frame is kikuchipy's turned by 90
# degrees about z (kikuchipy's conversion, phi1 + 90): the .ctf's
# (300, 40, 50) is clxcorr's (30, 40, 50).
{
    printf '# GRID: SqrGrid\n# XSTEP: 1.0\n# YSTEP: 1.0\n# NCOLS_ODD: 3\n# NCOLS_EVEN: 3\n# NROWS: 1\n'
    for x in 0 1 2; do printf '0.5235988 0.6981317 0.8726646 %d.0 0.0 100 0.9 1\n' "$x"; done
} >"$TMP/scan.ang"
{
    printf 'Channel Text File\nJobMode\tGrid\nXCells\t3\nYCells\t1\nXStep\t1\nYStep\t1\n'
    printf 'Phase\tX\tY\tBands\tError\tEuler1\tEuler2\tEuler3\tMAD\tBC\tBS\n'
    printf '1\t0\t0\t8\t0\t300\t40\t50\t0.5\t150\t200\n1\t1\t0\t8\t0\t300\t40\t50\t0.5\t150\t200\n'
    printf '0\t2\t0\t0\t3\t0\t0\t0\t0\t20\t30\n'
} >"$TMP/scan.ctf"
STIFF="--stiffness cubic:165.7,63.9,79.6"
strain $GEOM $CLASSIC --regions "$S/regions.txt" $STIFF --euler 30,40,50 "$S/reference.tif" "$S"/image_000[1-3].tif \
    >"$TMP/euler.csv" || fail "strain --euler 30,40,50"
strain $GEOM $CLASSIC --regions "$S/regions.txt" $STIFF --orientations "$TMP/scan.ang" "$S/reference.tif" \
    "$S"/image_000[1-3].tif >"$TMP/ang.csv" || fail "strain --orientations scan.ang"
# The .ang's radians have 7 digits (30 degrees is 0.5235988 there, 5e-8
# rad off): the strains agree with --euler's to far below 1e-9, but not
# always to the last printed digit.
same_rows() {
    awk -F, 'NR == FNR { for (k = 1; k <= NF; k++) want[FNR, k] = $k; n = FNR; next }
        { if (NF != 13) bad = 1
          for (k = 2; k <= NF; k++) { d = $k - want[FNR, k]; if (d > 1e-9 || d < -1e-9) bad = 1 } }
        END { exit bad || FNR != n }' "$1" "$2"
}
awk -F, 'NR > 1 && $13 != 0 { bad = 1 } END { exit bad || NR != 4 }' "$TMP/euler.csv" \
    && same_rows "$TMP/euler.csv" "$TMP/ang.csv" \
    && pass "--orientations FILE.ang, by pattern index: --euler's rows within 1e-9, full strain (flags 0)" \
    || fail "--orientations FILE.ang: $(diff "$TMP/euler.csv" "$TMP/ang.csv" | head -4)"
strain $GEOM $CLASSIC --regions "$S/regions.txt" $STIFF --scan-cols 3 --orientations "$TMP/scan.ctf" "$S/reference.tif" \
    "$S"/image_000[1-3].tif >"$TMP/ctf.csv" || fail "strain --orientations scan.ctf"
awk -F, 'NR == FNR { if (FNR <= 3) want[FNR] = $0; next }
    FNR <= 3 && $0 != want[FNR] { bad = 1 } FNR == 4 && $13 != 4 { bad = 1 } END { exit bad || FNR != 4 }' \
    "$TMP/euler.csv" "$TMP/ctf.csv" && pass "--orientations FILE.ctf by scan point: --euler's rows; not indexed: flags 4" \
    || fail "--orientations FILE.ctf: $(cat "$TMP/ctf.csv")"

# --- a rotation of 3 degrees, remapped -----------------------------------------
# The windows 30 px from the edge, beyond the pre-filter's reach (24 px):
# nearer, the mirrored border costs 5e-5 of strain and 9e-5 rad here,
# remapped or not, which would hide what --remap does (without it: 2.7e-5
# and 1.2e-4 rad).
R=$TMP/r
"$CLXCORR_SAMPLES" --kikuchi --out "$R" --count 2 --rotation 3 --seed 11 --margin 30 >/dev/null 2>&1 || exit 99
strain $GEOM --regions "$R/regions.txt" --remap -o "$TMP/rot.csv" "$R/reference.tif" "$R"/image_000[12].tif \
    || fail "strain --remap"
# No strain at all: every e is phantom; w against the truth's (antisym(R - I) = sin(angle) axis, 5e-6 rad off).
# Measured 2.95e-6 of phantom strain and 5.6e-6 rad (PoCL): bounds three times that.
awk -F, 'NR == FNR { if (FNR > 1) { w1[FNR] = $23; w2[FNR] = $24; w3[FNR] = $25 } next }
    FNR > 1 { for (k = 2; k <= 7; k++) { e += $k * $k; n++ }
              d = ($8 - w1[FNR])^2 + ($9 - w2[FNR])^2 + ($10 - w3[FNR])^2; if (d > wd) wd = d
              if ($13 >= 16) unsettled++ }
    END { e = sqrt(e / n); wd = sqrt(wd); printf "phantom strain %.3g RMS, rotation off by %.3g rad\n", e, wd
          exit !(e < 9e-6 && wd < 1.7e-5 && !unsettled) }' "$R/truth.csv" "$TMP/rot.csv" >"$TMP/rot.txt" \
    && pass "3 degrees with --remap: $(cat "$TMP/rot.txt")" || fail "3 degrees with --remap: $(cat "$TMP/rot.txt")"

# --- a pattern file's scan -------------------------------------------------------
if "$CLXCORR" --version | grep -q 'features:.* hdf5'; then
    D=$TESTS_SRCDIR/data/ebsd
    strain --pc 0.42,0.31,0.58 --sample-tilt 70 --detector-tilt 0 --grid 2x2 --window 24x24 --margin 8 \
        "$D/patterns.h5#0,0" "$D/patterns.h5" >"$TMP/scan.csv" || fail "strain over patterns.h5"
    head -1 "$TMP/scan.csv" | grep -q '^scan_row,scan_col,scan_x,scan_y,e11,' && [ "$(wc -l <"$TMP/scan.csv")" -eq 7 ] \
        && pass "a scan's rows: scan points, 6 patterns" || fail "scan rows: $(head -2 "$TMP/scan.csv")"
    # Deviatoric rows (flag 4) are values like any: every point is drawn.
    "$CLXCORR" plot -v --map e12 -o "$TMP/e12.png" "$TMP/scan.csv" 2>"$TMP/err" && [ -s "$TMP/e12.png" ] \
        && grep -q "6 of 6 rows drawn, 0 points without a value" "$TMP/err" && pass "plot --map e12 of the strain rows" \
        || fail "plot --map e12: $(cat "$TMP/err")"
    strain --pc 0.42,0.31,0.58 --sample-tilt 70 --detector-tilt 0 --grid 2x2 --window 24x24 --margin 8 \
        --format h5 -o "$TMP/strain.h5" "$D/patterns.h5#0,0" "$D/patterns.h5" || fail "strain --format h5"
    [ -s "$TMP/strain.h5" ] && pass "--format h5 wrote a file" || fail "no strain.h5"
    # orix's .ang of the same 2 x 3 grid and steps: each point's orientation,
    # (1, 1) not indexed; a grid of other rows is refused.
    strain --pc 0.42,0.31,0.58 --sample-tilt 70 --detector-tilt 0 --grid 2x2 --window 24x24 --margin 8 $STIFF \
        --orientations "$TESTS_SRCDIR/data/orientations/scan.ang" "$D/patterns.h5#0,0" "$D/patterns.h5" \
        >"$TMP/scan-full.csv" || fail "strain --orientations scan.ang over patterns.h5"
    awk -F, 'NR == 1 { for (k = 1; k <= NF; k++) c[$k] = k; next }
        { n++; if (int($c["flags"] / 4) % 2 != ($1 == 1 && $2 == 1)) bad = 1 } END { exit bad || n != 6 }' \
        "$TMP/scan-full.csv" && pass "--orientations over a scan: by scan point; (1, 1) not indexed, deviatoric" \
        || fail "--orientations over a scan: $(cat "$TMP/scan-full.csv")"
    expect_failure "an orientation grid that is not the scan's" 1 \
        "--orientations .*scan.ctf: a grid of 1 x 3 points \(rows x columns\), where the patterns' scan has 2 x 3" \
        strain --pc 0.42,0.31,0.58 --sample-tilt 70 --detector-tilt 0 --grid 2x2 --window 24x24 --margin 8 $STIFF \
        --orientations "$TMP/scan.ctf" "$D/patterns.h5#0,0" "$D/patterns.h5"
fi

# --- bad input: one line, no rows -----------------------------------------------
expect_failure "no pattern centre" 1 "strain needs the pattern centre: give --pc" \
    strain --regions "$S/regions.txt" --sample-tilt 70 --detector-tilt 10 "$S/reference.tif" "$S/image_0001.tif"
expect_failure "no sample tilt" 1 "strain needs the sample tilt: give --sample-tilt" \
    strain --regions "$S/regions.txt" --pc 0.5,0.35,0.65 --detector-tilt 10 "$S/reference.tif" "$S/image_0001.tif"
expect_failure "three windows" 1 "strain needs at least 4 windows per pattern" \
    strain $GEOM --grid 3x1 --window 60x60 --margin 10 "$S/reference.tif" "$S/image_0001.tif"
expect_failure "windows on a line" 1 "the 5 windows do not fix the strain \(they lie on a line" \
    strain $GEOM --grid 5x1 --window 50x50 --margin 10 "$S/reference.tif" "$S/image_0001.tif"
expect_failure "a stiffness that does not parse" 2 "--stiffness: .*cubic" \
    strain $GEOM --regions "$S/regions.txt" --stiffness cubic:165.7,63.9 "$S/reference.tif" "$S/image_0001.tif"
expect_failure "--stiffness without an orientation" 1 "--stiffness needs each pattern's crystal orientation" \
    strain $GEOM --regions "$S/regions.txt" --stiffness cubic:165.7,63.9,79.6 "$S/reference.tif" "$S/image_0001.tif"
sed 's/^0.5235988 0.6981317 0.8726646 1.0/0.5235988 0.6981317 O.87 1.0/' "$TMP/scan.ang" >"$TMP/bad.ang"
expect_failure "an .ang line that does not parse" 1 "--orientations: .*/bad.ang:8: not a number: \"O.87" \
    strain $GEOM --regions "$S/regions.txt" $STIFF --orientations "$TMP/bad.ang" "$S/reference.tif" "$S/image_0001.tif"
expect_failure "an orientation grid that is not the patterns'" 1 \
    "--orientations .*scan.ang: 3 points \(1 x 3\), for 2 patterns" \
    strain $GEOM --regions "$S/regions.txt" $STIFF --orientations "$TMP/scan.ang" "$S/reference.tif" "$S"/image_000[12].tif
expect_failure "an orientation grid of other columns" 1 \
    "--orientations .*scan.ctf: a grid of 1 x 3 points \(rows x columns\), where --scan-cols 2 lays" \
    strain $GEOM --regions "$S/regions.txt" $STIFF --scan-cols 2 --orientations "$TMP/scan.ctf" "$S/reference.tif" \
    "$S"/image_000[12].tif
expect_failure "--euler and --orientations" 2 "--euler and --orientations both give the orientation" \
    strain $GEOM --regions "$S/regions.txt" $STIFF --euler 0,0,0 --orientations "$TMP/scan.ang" "$S/reference.tif" \
    "$S/image_0001.tif"
expect_failure "a bad --pc" 2 "--pc: expected X,Y,Z" \
    strain --pc 0.5,0.35 --regions "$S/regions.txt" "$S/reference.tif" "$S/image_0001.tif"
finish
