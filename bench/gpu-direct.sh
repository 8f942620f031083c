#!/bin/sh
# bench/gpu-direct.sh - the direct path on a GPU host, in one command:
# correctness of every direct-kernel variant on each device there
# (tests/test_direct), the FFT/direct crossover and the variants
# (clxcorr-crossover), and patterns/s with a bounded search on the sample
# set for both paths, next to peer_cupy on the same images.
#
#   bench/gpu-direct.sh BUILD_DIR [OUT_DIR]      (after . .gpu-host/setup.sh)
set -eu
build=${1:?usage: bench/gpu-direct.sh BUILD_DIR [OUT_DIR]}
out=${2:-/tmp/clxcorr-direct}
here=$(cd "$(dirname "$0")/.." && pwd)
export CLXCORR_KERNEL_DIR="$here/cl"
mkdir -p "$out"

for dev in nvidia portable; do
    echo "== tests/test_direct on $dev"
    CLXCORR_DEVICE=$dev "$build/tests/test_direct" >"$out/test_direct.$dev.log" 2>&1 && echo passed || echo FAILED
    grep -E "FAIL|not on this device|device:" "$out/test_direct.$dev.log" | sort | uniq -c | head -20
done

echo "== crossover on the GPU (50 windows, batch of 128 images)"
"$build/bench/clxcorr-crossover" --device nvidia --windows 50 --images 128

echo "== sample set: seed mode, --max-shift 8 and full, both paths, and peer_cupy"
"$build/samples/clxcorr-samples" --out "$out/set" --count 24
images=$(ls "$out/set"/image_*.tif)
for args in "--method fft --max-shift 8" "--method direct --max-shift 8" "--method auto --max-shift 8" "--method auto"; do
    # shellcheck disable=SC2086
    "$build/bench/clxcorr-throughput" --device nvidia $args --repeat 16384 --regions "$out/set/regions.txt" \
        "$out/set/reference.tif" $images
done
# shellcheck disable=SC2086
python3 "$here/bench/peer_cupy.py" --ref "$out/set/reference.tif" --regions "$out/set/regions.txt" \
    --repeat 16384 $images
