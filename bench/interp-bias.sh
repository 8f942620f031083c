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
# Each column is one refinement with one interpolation: the correlation
# refinement (--refine correlation, "corr") with each --interp, and IC-GN
# (--refine icgn) with shape function 0 ("icgn0") or 1 ("icgn1").
# Without noise what is left is the interpolation's own bias. For each
# set it prints the curves side by side, then per column the curve's
# peak-to-peak and RMS (over the bins), the RMS of all errors (per axis)
# and, for IC-GN, the RMS of its own sigma_dx, sigma_dy estimates.
# With matplotlib, bench/plot_bias.py draws the curves from OUT_DIR.
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
methods=${METHODS:-"corr:lanczos3 corr:keys corr:bspline3 corr:bspline5 icgn0:lanczos3 icgn0:bspline3 icgn0:bspline5 icgn1:bspline5"}
mkdir -p "$out"

"$build/samples/clxcorr-samples" --out "$out/speckle" --kind speckle --step 0.05 --count 21 >/dev/null
"$build/samples/clxcorr-samples" --out "$out/speckle-noise" --kind speckle --step 0.05 --count 21 --noise 1160 \
    >/dev/null
"$build/samples/clxcorr-samples" --out "$out/kikuchi" --count 48 --max-strain 0 >/dev/null

echo "device: $("$clx" offsets -v "$@" --mode seed --regions "$out/speckle/regions.txt" \
    "$out/speckle/reference.tif" "$out/speckle/image_0001.tif" 2>&1 >/dev/null | sed -n 's/^clxcorr: device //p')"
# The options of one column ("icgn1:bspline5").
method_options() {
    refine=${1%%:*} interp=${1#*:}
    case $refine in
    corr) echo "--refine correlation --interp $interp" ;;
    icgn0) echo "--refine icgn --shape 0 --interp $interp" ;;
    icgn1) echo "--refine icgn --shape 1 --interp $interp" ;;
    esac
}

# The RMS of the sigma_dx and sigma_dy columns, where a run has them.
sigma_rms() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "sigma_dx") a = i; if ($i == "sigma_dy") b = i } next }
             a && $a != "nan" { s += $a * $a + $b * $b; n += 2 }
             END { if (n) printf "%.5f", sqrt(s / n); else printf "-" }' "$1"
}

first=${methods%% *}
for set in speckle speckle-noise kikuchi; do
    for m in $methods; do
        # shellcheck disable=SC2046,SC2086
        "$clx" offsets -q $(method_options "$m") "$@" --regions "$out/$set/regions.txt" "$out/$set/reference.tif" \
            "$out/$set"/image_*.tif >"$out/$set.$m.csv"
        awk -F, -v BIN=0.05 -f "$here/bias_curve.awk" "$out/$set/truth.csv" "$out/$set.$m.csv" >"$out/$set.$m.bias"
    done
    echo
    echo "$set: mean error (px) per sub-pixel shift bin, both axes"
    printf '%-8s' "shift"
    for m in $methods; do printf ' %16s' "$m"; done
    echo
    grep -hv '^summary' "$out/$set.$first.bias" | while read -r frac _ _; do
        printf '%-8s' "$frac"
        for m in $methods; do
            printf ' %16s' "$(awk -v f="$frac" '$1 == f { print $2 }' "$out/$set.$m.bias")"
        done
        echo
    done
    printf '%-16s %14s %10s %10s %8s %10s\n' "$set" "peak-to-peak" "bias rms" "rms" "samples" "sigma rms"
    for m in $methods; do
        grep '^summary' "$out/$set.$m.bias" | {
            read -r _ p2p bias rms samples
            printf '%-16s %14s %10s %10s %8s %10s\n' "$m" "$p2p" "$bias" "$rms" "$samples" "$(sigma_rms "$out/$set.$m.csv")"
        }
    done
done
