#!/bin/sh
# clxcorr strain in kikuchipy's frames, on files kikuchipy wrote
# (tests/data/hrebsd, made by its make_fixtures.py from kikuchipy's nickel
# master pattern, each test pattern the reference crystal deformed by a
# known F in kikuchipy's sample frame): with no geometry option, the
# detector, the tilts and the per-point pattern centres come from the
# file's header, and the strain and rotation must match the truth in
# kikuchipy's sample frame (tests/strain_truth.awk). Patterns of 360 x 480,
# rotated by 0.02 to 2 degrees and strained by up to 2e-3, 35 windows of
# 64 x 64. Measured on PoCL (RMS over the 6 points):
#   tilt    --remap: strain, rotation      without: strain, rotation
#   -10     1.27e-5, 9.2e-6                2.80e-5, 2.51e-5
#     0     5.2e-6, 4.9e-6                 2.20e-5, 2.98e-5
#    10     1.54e-5, 1.46e-5               2.42e-5, 2.13e-5
# Bounds: with --remap the issue's 3e-5 (strain) and 5e-5 rad (rotation);
# without, 6e-5 and 9e-5 (about three times the measured). A frame or sign
# error shows as 1e-3 and more (before kikuchipy's frames: 1.2e-3 strain,
# 1.2e-2 rad).
# Also: a pattern centre given in percent, kikuchipy's placeholders for an
# unknown pixel size and step, and header strings in UTF-8.
. "$TESTS_SRCDIR/lib.sh"
need_device
need_hdf5 "the fixtures are h5ebsd files"
D=$TESTS_SRCDIR/data/hrebsd
WINDOWS="--grid 7x5 --window 64x64 --margin 16"

# bounded NAME STRAIN_BOUND ROTATION_BOUND ERROR_LINE
bounded() {
    echo "$4" | awk -v s="$2" -v w="$3" '{ exit !($3 + 0 <= s + 0 && $8 + 0 <= w + 0 && $0 ~ /failed 0$/) }'
}

for tilt in -10 0 10; do
    for remap in --remap ""; do
        name="detector tilt $tilt${remap:+, $remap}"
        # shellcheck disable=SC2086
        if ! "$CLXCORR" strain -q $WINDOWS $remap -o "$TMP/strain.csv" "$D/tilt_$tilt.h5#0,0" "$D/tilt_$tilt.h5" \
            2>"$TMP/err"; then
            fail "$name: strain failed: $(cat "$TMP/err")"
            continue
        fi
        error=$(awk -F, -f "$TESTS_SRCDIR/strain_truth.awk" "$D/tilt_${tilt}_truth.csv" "$TMP/strain.csv")
        if [ -n "$remap" ]; then bounds="3e-5 5e-5"; else bounds="6e-5 9e-5"; fi
        # shellcheck disable=SC2086
        if bounded "$name" $bounds "$error"; then
            pass "$name: $error (bounds $bounds)"
        else
            fail "$name: $error, above the bounds $bounds"
        fi
    done
done

# --explain names the geometry used and where each value came from.
"$CLXCORR" strain --explain $WINDOWS -o "$TMP/strain.csv" "$D/tilt_10.h5#0,0" "$D/tilt_10.h5" 2>"$TMP/err" \
    || fail "--explain: $(cat "$TMP/err")"
grep -q "reference's pattern centre (0.52500, 0.36577, 0.61667), Bruker's convention, from the reference's pattern file" \
    "$TMP/err" && grep -q "detector tilt 10 degrees from the reference's pattern file" "$TMP/err" \
    && grep -q "each pattern's centre: the file's own, one per point" "$TMP/err" \
    && pass "--explain: the pattern centre, tilts and per-point centres with their sources" \
    || fail "--explain: $(grep -A4 'strain geometry' "$TMP/err")"

# Percentages for fractions, and centres no detector has.
expect_failure "--pc in percent" 2 "--pc 50,35,65: pattern centre \(50, 35, 65\) looks like percentages: give fractions" \
    "$CLXCORR" strain --pc 50,35,65 $WINDOWS "$D/tilt_0.h5#0,0" "$D/tilt_0.h5"
expect_failure "--pc off the screen" 2 "--pc 0.5,3.2,0.6: .*PCy is 2.2 pattern heights off the screen" \
    "$CLXCORR" strain --pc 0.5,3.2,0.6 $WINDOWS "$D/tilt_0.h5#0,0" "$D/tilt_0.h5"
expect_failure "--pc with PCz 12" 2 "PCz, the detector distance over the pattern's height, must be more than 0 and at most 10" \
    "$CLXCORR" strain --pc 0.5,0.4,12 $WINDOWS "$D/tilt_0.h5#0,0" "$D/tilt_0.h5"

# kikuchipy's placeholders (a 1 um detector pixel, 1 um steps): no beam
# shift from them, named as what they are.
P="$D/placeholders.h5"
SMALL="--grid 3x3 --window 16x16 --margin 4"
"$CLXCORR" strain --explain $SMALL -o "$TMP/p.csv" "$P#0,0" "$P" 2>"$TMP/err" \
    && grep -q "the reference's (the file's detector pixel size of 1 um is kikuchipy's placeholder" "$TMP/err" \
    && grep -q "steps of 1 x 1 um may be kikuchipy's placeholder" "$TMP/err" \
    && pass "kikuchipy's placeholders: the reference's centre for every pattern, and said why" \
    || fail "placeholders: $(grep -A5 'strain geometry' "$TMP/err")"
expect_failure "--pattern-centres beam-shift on a placeholder" 1 \
    "needs the size of a pattern pixel on the detector: give --pixel-size UM .*kikuchipy's placeholder" \
    "$CLXCORR" strain --pattern-centres beam-shift $SMALL "$P#0,0" "$P"
"$CLXCORR" strain -q --pattern-centres beam-shift --pixel-size 40 --step 0,0 $SMALL -o "$TMP/b.csv" "$P#0,0" "$P" \
    2>"$TMP/err" && cmp -s "$TMP/b.csv" "$TMP/p.csv" \
    && pass "--step 0,0: the beam does not move, the rows are the fixed centre's" \
    || fail "--step 0,0: $(cat "$TMP/err"; diff "$TMP/b.csv" "$TMP/p.csv" | head -3)"
expect_failure "--pattern-centres file without per-point centres" 1 \
    "--pattern-centres file: the patterns' file gives one pattern centre, not one per point" \
    "$CLXCORR" strain --pattern-centres file $SMALL "$P#0,0" "$P"

# Header strings that h5py wrote as Python str (variable-length UTF-8).
"$CLXCORR" strain -q $SMALL -o "$TMP/u.csv" "$D/utf8_header.h5#0,0" "$D/utf8_header.h5" 2>"$TMP/err" \
    && cmp -s "$TMP/u.csv" "$TMP/p.csv" \
    && pass "UTF-8 header strings: read, the same rows as the ASCII file's" \
    || fail "UTF-8 header strings: $(cat "$TMP/err")"
finish
