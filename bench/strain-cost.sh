#!/bin/sh
# bench/strain-cost.sh - what `clxcorr strain` costs beyond the correlation,
# measured: the fit's host time (the monotonic clock around each pattern's
# fit, summed over the lanes and remap passes: --meta's seconds.strain_fit)
# against the run's wall time, and the wall time of --remap's passes against
# a run without them. A set of synthetic Kikuchi-sphere patterns
# (clxcorr-samples --kikuchi) of 400 x 400 px with 64 windows of 60 x 60,
# strain 1e-3 and rotations up to 0.5 degree; accurate mode (strain's
# default); each run twice, after an untimed run of each.
#
#   bench/strain-cost.sh BUILD_DIR [OUT_DIR] [COUNT] [CLXCORR OPTIONS...]
set -eu
build=${1:?usage: bench/strain-cost.sh BUILD_DIR [OUT_DIR] [COUNT] [CLXCORR OPTIONS...]}
out=${2:-/tmp/clxcorr-strain-cost}
count=${3:-64}
shift $(($# < 3 ? $# : 3))
rm -rf "$out/set"
mkdir -p "$out"
set_dir=$out/set
"$build/samples/clxcorr-samples" --kikuchi --out "$set_dir" --size 400x400 --grid 8x8 --window 60x60 --margin 20 \
    --count "$count" --seed 17 --strain 1e-3 --rotation 0.5 >/dev/null 2>&1
"$build/src/clxcorr" devices | head -3
echo "host: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'); load average $(cut -d' ' -f1-3 /proc/loadavg)"
geometry="--pc 0.5,0.35,0.65 --sample-tilt 70 --detector-tilt 10"
# Kernels are compiled for each batch size and pixel type (--remap's are
# floats): one untimed run of each first.
for opts in "" "--remap"; do
    # shellcheck disable=SC2086
    "$build/src/clxcorr" strain -q $geometry $opts "$@" --regions "$set_dir/regions.txt" -o "$out/warm.csv" \
        "$set_dir/reference.tif" "$set_dir"/image_*.tif
done

# value KEY FILE: a number of the --meta JSON.
value() {
    tr -d ' \n' <"$2" | sed -n "s/.*\"$1\":\([-0-9.e+]*\).*/\1/p"
}

for round in 1 2; do
    for opts in "" "--remap"; do
        # shellcheck disable=SC2086
        "$build/src/clxcorr" strain -v $geometry $opts "$@" --regions "$set_dir/regions.txt" -o "$out/rows.csv" \
            --meta "$out/meta.json" "$set_dir/reference.tif" "$set_dir"/image_*.tif 2>"$out/log"
        passes=$(grep -c -- "--remap pass" "$out/log" || true)
        # Without --remap, "images" is the whole correlation once the plans were
        # ready; with it, only the last pass (the earlier ones count in "total").
        echo "$round $count $(value strain_fit "$out/meta.json") $(value total "$out/meta.json")" \
            "$(value images "$out/meta.json") $(value lanes "$out/meta.json") $((passes + 1)) $opts" | awk '{
            printf "round %d: strain%-8s %d patterns x 64 windows, %d correlation pass%s: %.2f s wall time; fit %.4f s of host time (%.0f us a pattern a pass), %.3g %% of the wall time", $1, $8 == "" ? "" : " " $8, $2, $7, $7 == 1 ? "" : "es", $4, $3, 1e6 * $3 / ($2 * $7), 100 * $3 / $4
            if ($8 == "") printf ", %.3g %% of the %.2f s once the plans were ready", 100 * $3 / $5, $5
            printf " (%d lane%s)\n", $6, $6 == 1 ? "" : "s" }'
    done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
