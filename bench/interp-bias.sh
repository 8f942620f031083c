#!/bin/sh
# bench/interp-bias.sh - the accurate mode's bias curve for each of the
# refinement's interpolations (--interp): the mean offset error against the
# true shift's sub-pixel part, in 0.05 px bins (bench/bias_curve.awk), on
#   speckle  512x512 speckle moved in 0.05 px steps along both axes (0 to
#            1 px, 21 images), 36 windows of 64x64 (clxcorr-samples --kind
#            speckle --step 0.05);
#   speckle-noise  the same with Gaussian noise of 1160 counts, 2 % of its
#            range (about DIC Challenge Sample3's noise): bias and scatter;
#   kikuchi  900x900 Kikuchi-like patterns, random translations up to 6 px
#            and no strain (so that every window moves rigidly, as the bins
#            assume), 48 images, 50 windows of 100x100.
# Without noise what is left is the interpolation's own bias. For each
# set it prints the curves side by side, then per interpolation the curve's
# peak-to-peak and RMS (over the bins) and the RMS of all errors (per axis).
#
#   bench/interp-bias.sh BUILD_DIR [OUT_DIR] [-- EXTRA clxcorr OPTIONS]
set -eu
build=${1:?usage: bench/interp-bias.sh BUILD_DIR [OUT_DIR] [-- OPTIONS]}
shift
out=/tmp/clxcorr-interp-bias
if [ $# -gt 0 ] && [ "$1" != "--" ]; then out=$1; shift; fi
if [ $# -gt 0 ] && [ "$1" = "--" ]; then shift; fi
clx="$build/src/clxcorr"
here=$(dirname "$0")
interps="lanczos3 keys bspline3 bspline5"
mkdir -p "$out"

"$build/samples/clxcorr-samples" --out "$out/speckle" --kind speckle --step 0.05 --count 21 >/dev/null
"$build/samples/clxcorr-samples" --out "$out/speckle-noise" --kind speckle --step 0.05 --count 21 --noise 1160 \
    >/dev/null
"$build/samples/clxcorr-samples" --out "$out/kikuchi" --count 48 --max-strain 0 >/dev/null

echo "device: $("$clx" offsets -v "$@" --mode seed --regions "$out/speckle/regions.txt" \
    "$out/speckle/reference.tif" "$out/speckle/image_0001.tif" 2>&1 >/dev/null | sed -n 's/^clxcorr: device //p')"
for set in speckle speckle-noise kikuchi; do
    for interp in $interps; do
        # shellcheck disable=SC2086
        "$clx" offsets -q --interp "$interp" "$@" --regions "$out/$set/regions.txt" "$out/$set/reference.tif" \
            "$out/$set"/image_*.tif >"$out/$set.$interp.csv"
        awk -F, -v BIN=0.05 -f "$here/bias_curve.awk" "$out/$set/truth.csv" "$out/$set.$interp.csv" \
            >"$out/$set.$interp.bias"
    done
    echo
    echo "$set: mean error (px) per sub-pixel shift bin, both axes"
    printf '%-8s' "shift"
    for interp in $interps; do printf ' %10s' "$interp"; done
    echo
    grep -hv '^summary' "$out/$set.lanczos3.bias" | while read -r frac _ _; do
        printf '%-8s' "$frac"
        for interp in $interps; do
            printf ' %10s' "$(awk -v f="$frac" '$1 == f { print $2 }' "$out/$set.$interp.bias")"
        done
        echo
    done
    printf '%-14s %14s %10s %10s %8s\n' "$set" "peak-to-peak" "bias rms" "rms" "samples"
    for interp in $interps; do
        grep '^summary' "$out/$set.$interp.bias" | {
            read -r _ p2p bias rms samples
            printf '%-14s %14s %10s %10s %8s\n' "$interp" "$p2p" "$bias" "$rms" "$samples"
        }
    done
done
