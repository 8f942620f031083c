#!/bin/sh
# The IC-GN refinement (the accurate mode's default) through the command, on
# generated speckle (clxcorr-samples --kind speckle, 256 x 256, 16 windows
# of 48 x 48):
# - rigid shifts in 0.05 px steps over a pixel: the bias curve's
#   peak-to-peak (bench/bias_curve.awk) at most 0.002 px and the RMS error
#   at most 0.005 px, noise-free;
# - 1 % strain with a 1 degree rotation, and a 2 degree rotation with
#   0.5 % strain (--shape 1, the default): the displacement at every
#   window's centre within 0.01 px, and each of its four gradients within
#   1e-4 of the truth;
# - Gaussian noise of 2 % of the range: the measured scatter against the
#   sigma_dx, sigma_dy the rows report (their ratio within 0.75 to 1.33);
# - the columns each choice writes, and the refusals: --shape without
#   IC-GN, an unknown --refine, a shape column IC-GN shape 0 does not write.
. "$TESTS_SRCDIR/lib.sh"
need_device
here=$TESTS_SRCDIR/../bench

speckle() {
    name=$1
    shift
    "$CLXCORR_SAMPLES" --out "$TMP/$name" --kind speckle --size 256x256 --grid 4x4 --window 48x48 --margin 24 "$@" \
        >/dev/null 2>&1 || exit 99
}
offsets() {
    set_dir=$TMP/$1
    shift
    "$CLXCORR" offsets -q "$@" --regions "$set_dir/regions.txt" "$set_dir/reference.tif" "$set_dir"/image_*.tif
}
le() {
    awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 <= b + 0) }'
}

# Rigid shifts: bias and RMS.
speckle shifts --step 0.05 --count 21
offsets shifts >"$TMP/shifts.csv" || fail "offsets over the shifts"
awk -F, -v BIN=0.05 -f "$here/bias_curve.awk" "$TMP/shifts/truth.csv" "$TMP/shifts.csv" >"$TMP/bias"
read -r _ p2p _ rms samples <<EOF
$(grep '^summary' "$TMP/bias")
EOF
le "$p2p" 0.002 && le "$rms" 0.005 && pass "shifts: bias peak-to-peak $p2p px, rms $rms px ($samples samples)" \
    || fail "shifts: bias peak-to-peak $p2p px (bound 0.002), rms $rms px (bound 0.005)"

# Affine motion: centre displacement and gradients against the known G.
for g in "strain-rotation 0.009793815,-0.014365601,0.020626474,-0.005099186" \
         "rotation2 0.004387781,-0.034899497,0.035073994,-0.000609173"; do
    set -- $g
    speckle "$1" --gradient "$2" --count 3
    offsets "$1" >"$TMP/$1.csv" || fail "$1: offsets"
    worst=$(awk -F, -f "$TESTS_SRCDIR/../bench/offset_error.awk" "$TMP/$1/truth.csv" "$TMP/$1.csv" | awk '{ print $8 }')
    grad=$(awk -F, -v g="$2" 'BEGIN { split(g, G, ",") }
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        { e[1] = $col["dudx"] - G[1]; e[2] = $col["dudy"] - G[2]; e[3] = $col["dvdx"] - G[3]; e[4] = $col["dvdy"] - G[4]
          for (k = 1; k <= 4; k++) { if (e[k] < 0) e[k] = -e[k]; if (e[k] > m) m = e[k] } }
        END { printf "%.3g", m }' "$TMP/$1.csv")
    le "$worst" 0.01 && le "$grad" 1e-4 && pass "$1: centre displacement within $worst px, gradients within $grad" \
        || fail "$1: centre displacement off by up to $worst px (bound 0.01), gradients by $grad (bound 1e-4)"    # Green-Lagrange strains E = 1/2 (F^T F - I) of F = I + G.
    strain=$(awk -F, -v g="$2" 'BEGIN { split(g, G, ",")
            E[1] = G[1] + (G[1] ^ 2 + G[3] ^ 2) / 2; E[2] = G[4] + (G[2] ^ 2 + G[4] ^ 2) / 2
            E[3] = (G[2] + G[3] + G[1] * G[2] + G[3] * G[4]) / 2 }
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        { e[1] = $col["exx"] - E[1]; e[2] = $col["eyy"] - E[2]; e[3] = $col["exy"] - E[3]
          for (k = 1; k <= 3; k++) { if (e[k] < 0) e[k] = -e[k]; if (e[k] > m) m = e[k] } }
        END { printf "%.3g", m }' "$TMP/$1.csv")
    le "$strain" 1e-4 && pass "$1: Green-Lagrange exx, eyy, exy within $strain of G's" \
        || fail "$1: exx, eyy, exy off G's by $strain (bound 1e-4)"
done

# Noise: the reported sigmas against the scatter. The truth is a rigid
# shift, so every row's error counts.
speckle noisy --step 0.1 --count 11 --noise 1160
offsets noisy >"$TMP/noisy.csv" || fail "offsets over the noisy set"
ratio=$(awk -F, 'NR == FNR { if (FNR > 1) t[$1 "," $2] = $5 "," $6; next }
    FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    { n = split($1, p, "/"); split(t[p[n] "," $2], w, ",")
      ex = $5 - w[1]; ey = $6 - w[2]; se += ex * ex + ey * ey
      sp += $col["sigma_dx"] ^ 2 + $col["sigma_dy"] ^ 2 }
    END { printf "%.3f", sqrt(se / sp) }' "$TMP/noisy/truth.csv" "$TMP/noisy.csv")
le 0.75 "$ratio" && le "$ratio" 1.33 && pass "noise: measured scatter / reported sigma = $ratio" \
    || fail "noise: measured scatter / reported sigma = $ratio, outside 0.75 to 1.33"

# Columns of each choice.
cols() {
    offsets shifts "$@" 2>/dev/null | head -1
}
base=image,region,x,y,dx,dy,peak,flags,zncc,peak_ratio,iterations
[ "$(cols)" = "$base,znssd,sigma_dx,sigma_dy,dudx,dudy,dvdx,dvdy,exx,eyy,exy" ] && pass "default columns" \
    || fail "default columns: $(cols)"
[ "$(cols --shape 0)" = "$base,znssd,sigma_dx,sigma_dy" ] && pass "--shape 0 columns" \
    || fail "--shape 0 columns: $(cols --shape 0)"
[ "$(cols --refine correlation)" = "$base" ] && pass "--refine correlation columns" \
    || fail "--refine correlation columns: $(cols --refine correlation)"
[ "$(cols --refine none)" = "$base" ] && pass "--refine none columns" || fail "--refine none columns: $(cols --refine none)"

S=$TMP/shifts
expect_failure "--shape with the correlation refinement" 2 "--shape .*--refine icgn" \
    "$CLXCORR" offsets --refine correlation --shape 1 --regions "$S/regions.txt" "$S/reference.tif" "$S/image_0002.tif"
expect_failure "an unknown refinement" 2 "--refine: unknown refinement 'lsq'" \
    "$CLXCORR" offsets --refine lsq --regions "$S/regions.txt" "$S/reference.tif" "$S/image_0002.tif"
expect_failure "--shape 2" 2 "--shape" \
    "$CLXCORR" offsets --shape 2 --regions "$S/regions.txt" "$S/reference.tif" "$S/image_0002.tif"
expect_failure "a gradient column with shape 0" 2 "dudx is written with --shape 1" \
    "$CLXCORR" offsets --shape 0 --columns image,dudx --regions "$S/regions.txt" "$S/reference.tif" "$S/image_0002.tif"
finish
