#!/bin/sh
# bench/strain-accuracy.sh - how accurate `clxcorr strain` is on synthetic
# Kikuchi-sphere patterns of known deformation (clxcorr-samples --kikuchi):
# 400 x 400 patterns, 64 windows of 60 x 60 (an 8 x 8 grid), strains of
# 1e-4 to 2e-3 and rotations of 0.1 to 5 degrees, noise-free and with
# Poisson noise of 2000 counts a pixel; accurate mode (the default) and
# seed mode side by side, every case also with --remap, and those of 2 to 5
# degrees with --remap-rotation too. Each line: the RMS error of the deviatoric strain over its six
# components and the patterns (bench/strain_error.py; needs numpy).
#
#   bench/strain-accuracy.sh BUILD_DIR [OUT_DIR] [COUNT]
set -eu
build=${1:?usage: bench/strain-accuracy.sh BUILD_DIR [OUT_DIR] [COUNT]}
out=${2:-/tmp/clxcorr-strain-accuracy}
count=${3:-6}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
geometry="--pc 0.5,0.35,0.65 --sample-tilt 70 --detector-tilt 10"
"$build/src/clxcorr" devices | head -3

# case NAME GENERATOR-OPTIONS...: a set, then each mode's strain of it.
case_run() {
    name=$1
    shift
    set_dir=$out/$name
    "$build/samples/clxcorr-samples" --kikuchi --out "$set_dir" --size 400x400 --grid 8x8 --window 60x60 \
        --margin 20 --count "$count" --seed 17 "$@" >/dev/null 2>&1
    for run in "accurate:" "seed:--mode seed" "remap:--remap" "remap-rotation:--remap-rotation"; do
        label=${run%%:*} opts=${run#*:}
        case "$label:$name" in
            remap-rotation:*remapped*) ;;
            remap-rotation:*) continue ;;
        esac
        # shellcheck disable=SC2086
        "$build/src/clxcorr" strain -q $geometry $opts --regions "$set_dir/regions.txt" -o "$set_dir/$label.csv" \
            "$set_dir/reference.tif" "$set_dir"/image_*.tif
        printf '%-22s %-12s %s\n' "$name" "$label" "$(python3 "$here/strain_error.py" "$set_dir/truth.csv" "$set_dir/$label.csv")"
    done
}

for noise in 0 2000; do
    tag=$([ "$noise" -eq 0 ] && echo "" || echo "-noise")
    for s in 1e-4 5e-4 1e-3 2e-3; do
        case_run "strain$s$tag" --strain "$s" --noise "$noise"
    done
    for deg in 0.1 0.5 1; do
        case_run "strain1e-3-rot$deg$tag" --strain 1e-3 --rotation "$deg" --noise "$noise"
    done
    for deg in 2 3 5; do
        case_run "strain1e-3-rot$deg-remapped$tag" --strain 1e-3 --rotation "$deg" --noise "$noise"
    done
done
