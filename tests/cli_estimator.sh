#!/bin/sh
# offsets --estimator where it decides the offset (tests/test_accurate.c
# shows that after IC-GN all four give the same figures):
# - seed mode: each estimator's rows against the host reference's
#   (clxcorr-ref --estimator: tests/host_ref.c's href_estimate, written from
#   the definitions in doc/accurate-mode.md and clxcorr.h), and each unlike
#   lsq's;
# - accurate mode without refinement (--refine none, where the passes'
#   estimate is the offset): four different sets of rows, each within three
#   times its measured error of the truth.
. "$TESTS_SRCDIR/lib.sh"
need_device
make_small_set "$TMP/set" 4
S=$TMP/set

# --- seed mode, against the host reference -------------------------------------------
# Measured (PoCL, float against double): 1e-6 px (lsq, centroid) and 3e-6
# px (gauss3, parabola3); bound 1e-5 px, and the peak within 1e-5 relative.
for e in lsq gauss3 parabola3 centroid; do
    "$CLXCORR" offsets --mode seed --estimator $e --regions "$S/regions.txt" "$S/reference.tif" "$S"/image_*.tif \
        >"$TMP/seed.$e.csv" || fail "seed --estimator $e"
    "$CLXCORR_REF" --estimator $e --regions "$S/regions.txt" "$S/reference.tif" "$S"/image_*.tif >"$TMP/ref.$e.csv" \
        || fail "clxcorr-ref --estimator $e"
    compare_csv "seed --estimator $e against the host reference" "$TMP/seed.$e.csv" "$TMP/ref.$e.csv" 1e-5
done
# The three others move the offsets away from lsq's (by about 0.5 px at
# most on this set, measured), each its own way.
for e in gauss3 parabola3 centroid; do
    paste -d, "$TMP/seed.lsq.csv" "$TMP/seed.$e.csv" | awk -F, 'NR > 1 { d = $5 - $13; if (d < 0) d = -d; e = $6 - $14
        if (e < 0) e = -e; if (e > d) d = e; if (d > m) m = d } END { printf "%.3g", m; exit !(m > 0.05) }' >"$TMP/apart" \
        && pass "seed --estimator $e: up to $(cat "$TMP/apart") px from lsq's offsets" \
        || fail "seed --estimator $e: only $(cat "$TMP/apart") px from lsq's: the option made no difference"
done

# --- accurate mode, --refine none ------------------------------------------------------
# A speckle set moved 0.13 px per image, where the estimators' biases differ most.
P=$TMP/speckle
"$CLXCORR_SAMPLES" --out "$P" --kind speckle --size 192x160 --count 6 --step 0.13 --grid 3x2 --window 40x40 \
    --margin 16 >/dev/null || exit 99
# rms CSV: the RMS error vector length against the truth, px.
rms() {
    awk -F, 'NR == FNR { if (FNR > 1) truth[$1 "," $2] = $5 "," $6; next }
        FNR > 1 { n = split($1, path, "/"); key = path[n] "," $2; if (!(key in truth)) next
                  split(truth[key], t, ","); ex = $5 - t[1]; ey = $6 - t[2]; sum += ex * ex + ey * ey; rows++ }
        END { printf "%.3g\n", rows ? sqrt(sum / rows) : 9 }' "$P/truth.csv" "$1"
}
# Measured RMS (PoCL): lsq 0.0244, gauss3 0.0457, parabola3 0.0529,
# centroid 0.175 px (IC-GN, the default: 0.00063 with every one).
for pair in "lsq 0.073" "gauss3 0.14" "parabola3 0.16" "centroid 0.52"; do
    set -- $pair
    "$CLXCORR" offsets -q --refine none --estimator "$1" --regions "$P/regions.txt" "$P/reference.tif" "$P"/image_*.tif \
        >"$TMP/acc.$1.csv" || fail "--refine none --estimator $1"
    e=$(rms "$TMP/acc.$1.csv")
    awk -v a="$e" -v l="$2" 'BEGIN { exit !(a <= l) }' && pass "--refine none --estimator $1: rms $e px <= $2" \
        || fail "--refine none --estimator $1: rms $e px > $2"
done
# Four different sets of rows (dx, dy).
for e in lsq gauss3 parabola3 centroid; do cut -d, -f5,6 "$TMP/acc.$e.csv" | cksum; done | sort -u | wc -l >"$TMP/distinct"
[ "$(cat "$TMP/distinct")" -eq 4 ] && pass "--refine none: the four estimators give four sets of offsets" \
    || fail "--refine none: $(cat "$TMP/distinct") distinct sets of offsets for four estimators"
finish
