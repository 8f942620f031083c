#!/bin/sh
# bench/gpu-accurate.sh - the accurate mode on a GPU host, in one command:
# its tests on the GPU (tests/test_accurate; tests/test_direct for the
# direct path's few-shifts form, on the GPU and on PoCL), its accuracy on the
# synthetic sets (bench/accuracy.sh, seed mode beside it), patterns/s of both
# modes on the GPU and on PoCL next to peer_cupy on the same images, the
# few-shifts form against the shift-parallel kernel, and the pre-filters.
#
#   bench/gpu-accurate.sh BUILD_DIR [OUT_DIR]      (after . .gpu-host/setup.sh)
set -eu
build=${1:?usage: bench/gpu-accurate.sh BUILD_DIR [OUT_DIR]}
out=${2:-/tmp/clxcorr-accurate}
here=$(cd "$(dirname "$0")/.." && pwd)
export CLXCORR_KERNEL_DIR="$here/cl"
mkdir -p "$out"

echo "== tests"
for t in "nvidia test_accurate" "nvidia test_direct" "portable test_direct"; do
    set -- $t
    if CLXCORR_DEVICE=$1 "$build/tests/$2" >"$out/$2.$1.log" 2>&1; then echo "$2 on $1: passed"; else echo "$2 on $1: FAILED"; fi
    grep -E "FAIL|not on this device|device:|max error|first pass" "$out/$2.$1.log" | sort | uniq -c | head -12
done

echo "== accuracy and patterns/s on the GPU (bench/accuracy.sh)"
CLXCORR_DEVICE=nvidia REPEAT=8192 sh "$here/bench/accuracy.sh" "$build" "$out/acc" -- --device nvidia

set_dir=$out/acc/kikuchi
images=$(ls "$set_dir"/image_*.tif)
echo "== patterns/s, Kikuchi set: batch sizes on the GPU, PoCL (16 cores), peer_cupy"
for mode in seed accurate; do
    for b in 32 256; do
        # shellcheck disable=SC2086
        "$build/bench/clxcorr-throughput" --device nvidia --mode $mode --batch $b --repeat 8192 \
            --regions "$set_dir/regions.txt" "$set_dir/reference.tif" $images
    done
    # shellcheck disable=SC2086
    "$build/bench/clxcorr-throughput" --device portable --mode $mode --repeat 256 --regions "$set_dir/regions.txt" \
        "$set_dir/reference.tif" $images
done
# shellcheck disable=SC2086
python3 "$here/bench/peer_cupy.py" --ref "$set_dir/reference.tif" --regions "$set_dir/regions.txt" \
    --repeat 8192 $images

echo "== the direct path's few-shifts form against shift blocks (seed mode, --method direct)"
for r in 1 2 4; do
    for few in 1 0; do
        # shellcheck disable=SC2086
        "$build/bench/clxcorr-throughput" --device nvidia --method direct --max-shift $r --param direct_few=$few \
            --repeat 8192 --regions "$set_dir/regions.txt" "$set_dir/reference.tif" $images
    done
done

echo "== pre-filters"
"$build/bench/clxcorr-filter-bench" --device nvidia 2>&1 | tail -25
