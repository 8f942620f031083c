#!/bin/sh
# bench/accuracy.sh - offsets against the truth on the project's synthetic
# sets, seed mode beside accurate mode:
#   kikuchi  900x900 Kikuchi-like patterns, shifts up to 6 px, 0.2 % strain,
#            50 windows of 100x100 (clxcorr-samples' defaults);
#   speckle  512x512 speckle moved in 0.1 px steps (0 to 2 px), 36 windows
#            of 64x64 (clxcorr-samples --kind speckle);
#   kikuchi-noise  the Kikuchi set's first 12 patterns with Gaussian noise of
#            200 counts (about Poisson noise at their mean of 24,000): where
#            the pre-filters differ most (--sweep adds 8 with 1,000 counts).
# Errors are the offset minus the true displacement at the window centre;
# every row counts, flagged or not (bench/offset_error.awk says how "rms",
# "rms/axis" and "max" are taken).
#
#   bench/accuracy.sh BUILD_DIR [OUT_DIR] [--sweep] [-- EXTRA clxcorr OPTIONS]
#
# It ends with both modes' patterns/s on the Kikuchi set (bench/clxcorr-
# throughput, REPEAT patterns each, default 96). --sweep also tries the
# accurate mode's options one at a time around the defaults (how the
# defaults were chosen).
set -eu
build=${1:?usage: bench/accuracy.sh BUILD_DIR [OUT_DIR] [--sweep] [-- OPTIONS]}
shift
out=/tmp/clxcorr-accuracy
sweep=0
if [ $# -gt 0 ] && [ "$1" != "--sweep" ] && [ "$1" != "--" ]; then out=$1; shift; fi
if [ $# -gt 0 ] && [ "$1" = "--sweep" ]; then sweep=1; shift; fi
if [ $# -gt 0 ] && [ "$1" = "--" ]; then shift; fi
clx="$build/src/clxcorr"
mkdir -p "$out"

"$build/samples/clxcorr-samples" --out "$out/kikuchi" --count 24
"$build/samples/clxcorr-samples" --out "$out/speckle" --kind speckle --count 21
"$build/samples/clxcorr-samples" --out "$out/kikuchi-noise" --count 12 --noise 200

# error SET CSV: rms, rms per axis, max |error|, rows, flagged rows.
error() {
    awk -F, -f "$(dirname "$0")/offset_error.awk" "$1/truth.csv" "$2"
}

# run LABEL SET OPTIONS...
run() {
    label=$1 set=$2
    shift 2
    # The CSV's name: the label with anything but letters, digits, '.' and
    # '-' made '_'.
    csv="$out/$set.$(printf '%s' "$label" | tr -c 'A-Za-z0-9.-' '_').csv"
    # shellcheck disable=SC2086
    "$clx" offsets -q "$@" --regions "$out/$set/regions.txt" "$out/$set/reference.tif" "$out/$set"/image_*.tif \
        >"$csv"
    printf '%-13s %-52s %s\n' "$set" "$label" "$(error "$out/$set" "$csv")"
}

# The device the runs use, as clxcorr -v names it.
echo "device: $("$clx" offsets -v "$@" --mode seed --regions "$out/speckle/regions.txt" \
    "$out/speckle/reference.tif" "$out/speckle/image_0001.tif" 2>&1 >/dev/null | sed -n 's/^clxcorr: device //p')"
for set in kikuchi speckle kikuchi-noise; do
    run "seed" $set --mode seed "$@"
    run "accurate (defaults)" $set --mode accurate "$@"
done

# Patterns per second of both modes from memory (decoded once; uploads,
# device work and host fits included), on the Kikuchi set; the device is
# CLXCORR_DEVICE's, or the default.
for mode in seed accurate; do
    "$build/bench/clxcorr-throughput" --mode $mode --repeat "${REPEAT:-96}" --regions "$out/kikuchi/regions.txt" \
        "$out/kikuchi/reference.tif" "$out/kikuchi"/image_*.tif
done

if [ "$sweep" -eq 1 ]; then
    for set in kikuchi speckle kikuchi-noise; do
        run "first pass only (no prefilter, offset, refinement)" $set --prefilter none --refine 0 --passes 1 "$@"
        for pf in none background:4 background:12 background:20 highpass:2 background-divide:12 \
            gaussian:1+background:8; do
            run "prefilter $pf" $set --prefilter $pf "$@"
        done
        for w in none tukey:0.25 tukey:0.5; do run "window-fn $w" $set --window-fn $w "$@"; done
        for e in gauss3 parabola3 centroid; do run "estimator $e" $set --estimator $e "$@"; done
        run "fit-size 5" $set --fit-size 5 "$@"
        for p in 1 3; do run "passes $p" $set --passes $p "$@"; done
        for r in 0 1 2 4; do run "refine $r" $set --refine $r "$@"; done
        for t in 0.0001 0.01; do run "tol $t" $set --tol $t "$@"; done
        for f in 1 4; do run "fine-shift $f" $set --fine-shift $f "$@"; done
    done
    # Heavy noise (1,000 counts), where the high-pass that wins without noise
    # falls apart: the reason for the default.
    "$build/samples/clxcorr-samples" --out "$out/kikuchi-noise1000" --count 8 --noise 1000
    for pf in none background:8 highpass:2 gaussian:1+background:8; do
        run "prefilter $pf" kikuchi-noise1000 --prefilter $pf "$@"
    done
fi
