#!/bin/sh
# Accurate mode (the default) on small generated sets, against their truth,
# each bound three times the RMS error measured on PoCL (written beside
# it): 0.0024 px on the Kikuchi-like set and 0.0016 px on the speckle set
# moved in 0.1 px steps (the issue's targets were 0.03 and 0.01), with seed
# mode several times worse on both; the quality columns; seed mode's
# columns unchanged; and the correlation refinement with each --interp
# against the default IC-GN on the speckle set, where their bias differs
# most (bench/interp-bias.sh).
. "$TESTS_SRCDIR/lib.sh"
need_device

# The sets bench/accuracy.sh measures, with fewer images.
"$CLXCORR_SAMPLES" --out "$TMP/kikuchi" --count 3 || exit 99
"$CLXCORR_SAMPLES" --out "$TMP/speckle" --kind speckle --count 6 || exit 99

# rms SET CSV: the RMS error vector length, px, to 3 significant digits
# (bench/offset_error.awk's definition; it prints 4 decimals, too few here).
rms() {
    awk -F, 'NR == FNR { if (FNR > 1) truth[$1 "," $2] = $5 "," $6; next }
        FNR > 1 { n = split($1, path, "/"); key = path[n] "," $2; if (!(key in truth)) next
                  split(truth[key], t, ","); ex = $5 - t[1]; ey = $6 - t[2]; sum += ex * ex + ey * ey; rows++ }
        END { printf "%.3g\n", rows ? sqrt(sum / rows) : 1 }' "$TMP/$1/truth.csv" "$2"
}

for set in kikuchi speckle; do
    # Measured 0.00079 px RMS (kikuchi) and 0.00053 px (speckle), PoCL.
    limit=0.0024
    [ "$set" = speckle ] && limit=0.0016
    S=$TMP/$set
    "$CLXCORR" offsets -q --regions "$S/regions.txt" "$S/reference.tif" "$S"/image_*.tif >"$TMP/$set.csv" \
        || fail "$set: accurate mode failed"
    "$CLXCORR" offsets -q --mode seed --regions "$S/regions.txt" "$S/reference.tif" "$S"/image_*.tif \
        >"$TMP/$set.seed.csv" || fail "$set: seed mode failed"
    accurate=$(rms $set "$TMP/$set.csv")
    seed=$(rms $set "$TMP/$set.seed.csv")
    awk -v a="$accurate" -v l="$limit" 'BEGIN { exit !(a <= l) }' \
        && pass "$set: accurate mode rms $accurate px <= $limit" || fail "$set: accurate mode rms $accurate px > $limit"
    awk -v a="$accurate" -v s="$seed" 'BEGIN { exit !(5 * a < s) }' \
        && pass "$set: seed mode rms $seed px, over 5 times accurate mode's" \
        || fail "$set: seed mode rms $seed px is not 5 times accurate mode's $accurate px"
    # Every window of these sets matches: no flags, ZNCC near 1, a clear
    # peak, refinement done in a few iterations.
    awk -F, 'NR > 1 && ($8 != 0 || $9 < 0.95 || $10 <= 1 || $11 < 1 || $11 > 8) { bad++; if (bad < 4) print }
             END { exit bad > 0 }' "$TMP/$set.csv" >"$TMP/bad" \
        && pass "$set: no flags, zncc >= 0.95, peak ratio > 1, 1-8 iterations" \
        || fail "$set: rows out of range: $(cat "$TMP/bad")"
done

# The speckle set's error is almost all interpolation bias: 0.0072 px RMS
# with the correlation refinement's Lanczos-3, 0.00053 px with the default
# IC-GN's cubic B-spline; the correlation refinement with each
# interpolation. Measured on PoCL (RMS, px): default 0.00053, bspline5
# 3.9e-5, bspline3 0.00044, lanczos3 0.0072, keys 0.0081; each bound
# three times that or less.
S=$TMP/speckle
for interp in lanczos3 bspline5 keys bspline3; do
    "$CLXCORR" offsets -q --refine correlation --interp $interp --regions "$S/regions.txt" "$S/reference.tif" \
        "$S"/image_*.tif >"$TMP/speckle.$interp.csv" || fail "--interp $interp failed"
done
for pair in "speckle.csv 0.0016" "speckle.bspline5.csv 0.00012" "speckle.bspline3.csv 0.0013" "speckle.lanczos3.csv 0.01" \
    "speckle.keys.csv 0.02"; do
    set -- $pair
    e=$(rms speckle "$TMP/$1")
    awk -v a="$e" -v l="$2" 'BEGIN { exit !(a <= l) }' && pass "$1: rms $e px <= $2" || fail "$1: rms $e px > $2"
done
e5=$(rms speckle "$TMP/speckle.csv")
e3=$(rms speckle "$TMP/speckle.lanczos3.csv")
awk -v a="$e5" -v b="$e3" 'BEGIN { exit !(10 * a < b) }' \
    && pass "speckle: the default IC-GN's rms $e5 px, under a tenth of the correlation refinement's (Lanczos-3) $e3 px" \
    || fail "speckle: the default IC-GN's rms $e5 px is not under a tenth of the correlation refinement's $e3 px"

head -1 "$TMP/kikuchi.csv" \
    | grep -qx "image,region,x,y,dx,dy,peak,flags,zncc,peak_ratio,iterations,znssd,sigma_dx,sigma_dy,dudx,dudy,dvdx,dvdy,exx,eyy,exy" \
    && pass "accurate mode's header" || fail "header: $(head -1 "$TMP/kikuchi.csv")"
head -1 "$TMP/kikuchi.seed.csv" | grep -qx "image,region,x,y,dx,dy,peak,flags" \
    && pass "seed mode's header" || fail "seed header: $(head -1 "$TMP/kikuchi.seed.csv")"
finish
