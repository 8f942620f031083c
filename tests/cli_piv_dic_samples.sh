#!/bin/sh
# clxcorr offsets on clxcorr-samples' PIV pairs and DIC sequences, against
# their truth: every flow of --piv (uniform, solid rotation, shear within
# 0.01 px RMS; the Lamb-Oseen vortex, whose core a single pass of 32-px
# windows cannot follow, within 0.1 px over the unflagged windows), and
# --dic affine (displacement, gradient and Green-Lagrange strains) and sine
# (a 48-px window sees the sine's curvature: 0.05 px, gradients 2e-3).
# The files each set holds, and options of another set refused.
. "$TESTS_SRCDIR/lib.sh"
need_device
S=$TMP/sets
piv() {
    name=$1
    shift
    "$CLXCORR_SAMPLES" --out "$S/$name" --size 256x256 --grid-step 32 --window 32x32 --margin 16 --piv "$@" || exit 99
    "$CLXCORR" offsets --grid-step 32 --window 32x32 --margin 16 -o "$S/$name/out.csv" "$S/$name/frameA_0001.tif" \
        "$S/$name/frameB_0001.tif" || fail "$name: offsets"
}
# error NAME BOUND ONLY_UNFLAGGED: RMS and largest error of out.csv against truth_field.csv.
error() {
    paste -d, "$S/$1/truth_field.csv" "$S/$1/out.csv" | awk -F, -v bound="$2" -v unflagged="$3" '
        NR == 1 { next }
        unflagged && $14 != 0 { next }
        { ex = $11 - $5; ey = $12 - $6; e = ex * ex + ey * ey; s += e; n++; if (e > m) m = e }
        END { printf "RMS %.4f px, largest %.4f px over %d windows\n", sqrt(s / n), sqrt(m), n; exit n < 30 || sqrt(s / n) > bound }'
}
piv uniform uniform --velocity 3.3,-1.7
piv rotation rotation --omega 0.01
piv shear shear --shear-rate 0.02
piv vortex vortex --core-radius 40 --peak-speed 3
for f in uniform rotation shear; do
    error "$f" 0.01 0 >"$TMP/e" && pass "--piv $f: $(cat "$TMP/e")" || fail "--piv $f: $(cat "$TMP/e") (bound 0.01)"
done
error vortex 0.1 1 >"$TMP/e" && pass "--piv vortex: $(cat "$TMP/e")" || fail "--piv vortex: $(cat "$TMP/e") (bound 0.1)"
[ "$(ls "$S/vortex" | tr '\n' ' ')" = "flow.txt frameA_0001.tif frameB_0001.tif out.csv regions.txt truth_field.csv " ] \
    && grep -qx "flow vortex" "$S/vortex/flow.txt" && pass "--piv: frames, flow.txt, regions.txt, truth_field.csv" \
    || fail "--piv files: $(ls "$S/vortex" | tr '\n' ' ')"

dic() {
    name=$1
    shift
    "$CLXCORR_SAMPLES" --out "$S/$name" --size 256x256 --count 2 --grid-step 32 --window 48x48 --margin 24 --dic "$@" \
        || exit 99
    "$CLXCORR" offsets --grid-step 32 --window 48x48 --margin 24 -o "$S/$name/out.csv" "$S/$name/reference.tif" \
        "$S/$name"/image_*.tif || fail "$name: offsets"
    # truth: image,region,x,y,dx,dy,dudx..dvdy (7-10),exx,eyy,exy (11-13);
    # offsets: dx, dy at 5, 6 and dudx ... exy at 15 ... 21.
    paste -d, "$S/$name/truth.csv" "$S/$name/out.csv" | awk -F, '
        NR == 1 { next }
        { ex = $18 - $5; ey = $19 - $6; e = ex * ex + ey * ey; s += e; n++
          for (k = 0; k < 7; k++) { d = $(28 + k) - $(7 + k); if (d < 0) d = -d; if (d > g) g = d } }
        END { printf "%.4f %.2g %d\n", sqrt(s / n), g, n }' >"$TMP/e"
}
dic affine affine --translation 1.5,-0.75 --gradient 0.02,0.005,-0.005,-0.01
read -r rms grad n <"$TMP/e"
awk -v r="$rms" -v g="$grad" -v n="$n" 'BEGIN { exit !(r < 0.005 && g < 2e-4 && n == 72) }' \
    && pass "--dic affine: displacement RMS $rms px, gradients and strains within $grad ($n rows)" \
    || fail "--dic affine: displacement RMS $rms px (0.005), gradients and strains off by $grad (2e-4), $n rows"
dic sine sine --amplitude 1 --wavelength 256
read -r rms grad n <"$TMP/e"
awk -v r="$rms" -v g="$grad" -v n="$n" 'BEGIN { exit !(r < 0.05 && g < 2e-3 && n == 72) }' \
    && pass "--dic sine: displacement RMS $rms px, gradients and strains within $grad ($n rows)" \
    || fail "--dic sine: displacement RMS $rms px (0.05), gradients and strains off by $grad (2e-3), $n rows"
head -1 "$S/sine/truth.csv" | grep -qx "image,region,x,y,dx,dy,dudx,dudy,dvdx,dvdy,exx,eyy,exy" \
    && grep -qx "field sine" "$S/sine/field.txt" && pass "--dic: truth.csv's columns, field.txt" \
    || fail "--dic truth header: $(head -1 "$S/sine/truth.csv")"

gen_fails() {
    name=$1 pattern=$2
    shift 2
    if "$CLXCORR_SAMPLES" --out "$TMP/bad" "$@" 2>"$TMP/err"; then
        fail "$name: accepted"
    elif grep -q -- "$pattern" "$TMP/err"; then
        pass "$name: $(cat "$TMP/err")"
    else
        fail "$name: $(cat "$TMP/err")"
    fi
}
gen_fails "an unknown flow" "--piv: 'jet' is not uniform, rotation, shear or vortex" --piv jet
gen_fails "--omega with a vortex" "--omega is an option of --piv rotation" --piv vortex --omega 0.1
gen_fails "--amplitude with --dic affine" "--amplitude and --wavelength are options of --dic sine" --dic affine \
    --amplitude 2
gen_fails "--grid with --piv" "--grid is not an option of --piv" --piv uniform --grid 3x3
gen_fails "--density without --piv" "--density is an option of --piv or --dic" --kind speckle --density 0.1
finish
