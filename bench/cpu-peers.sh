#!/bin/sh
# bench/cpu-peers.sh - clxcorr on a CPU (PoCL) against what a user without a
# GPU would run instead, on the same cores, in one command (issue #21's
# measurements):
# - the first run: `clxcorr offsets` with an empty kernel cache (clxcorr's
#   and PoCL's) on the sample set (24 images of 900 x 900, 50 windows of
#   100 x 100, accurate mode: what `make run-sample` runs) and on 48 such
#   images in seed mode; wall time, start-up included;
# - warm, from memory: images/s of clxcorr's seed and accurate modes
#   (clxcorr-throughput) against the seed pipeline written with scipy.fft
#   on all cores (bench/peer_scipy.py), on the same images, 96 of them each
#   (both leave their first batch untimed);
# - a PIV-sized job: one 1024 x 1024 pair, 32 x 32 windows every 16 px
#   (3969 vectors), clxcorr's one pass (clxcorr-piv-bench) against OpenPIV's
#   extended_search_area_piv (window 32, overlap 16, search area 32) when
#   OpenPIV is installed.
#
#   bench/cpu-peers.sh BUILD_DIR [OUT_DIR]
#
# BUILD_DIR: a build tree (src/clxcorr, samples/clxcorr-samples,
# bench/clxcorr-throughput, bench/clxcorr-piv-bench). Needs python3 with
# numpy, scipy and tifffile; OpenPIV optional.
set -eu
build=${1:?usage: bench/cpu-peers.sh BUILD_DIR [OUT_DIR]}
out=${2:-/tmp/clxcorr-cpu-peers}
here=$(cd "$(dirname "$0")/.." && pwd)
export CLXCORR_KERNEL_DIR="$here/cl"
clx=$build/src/clxcorr
mkdir -p "$out"
S=$out/set48
[ -f "$S/image_0048.tif" ] || "$build/samples/clxcorr-samples" --out "$S" --count 48 >/dev/null
first24=$(ls "$S"/image_*.tif | head -24)
echo "device: $("$clx" devices | grep -m1 -i -e cpu -e pthread)"
echo "cores: $(nproc)  python: $(python3 -c 'import sys, numpy, scipy; print(sys.version.split()[0], "numpy", numpy.__version__, "scipy", scipy.__version__)')"

wall() {
    t0=$(date +%s%N)
    "$@" >/dev/null
    t1=$(date +%s%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 1e9 }'
}
cold() {
    rm -rf "$out/cache"
    XDG_CACHE_HOME=$out/cache/xdg POCL_CACHE_DIR=$out/cache/pocl wall "$@"
}
echo "== the first run (empty caches), wall seconds"
# shellcheck disable=SC2086
echo "sample set, 24 images, accurate (make run-sample): $(cold "$clx" offsets -q --device cpu --regions "$S/regions.txt" "$S/reference.tif" $first24) s"
# shellcheck disable=SC2086
echo "48 images, seed mode: $(cold "$clx" offsets -q --device cpu --mode seed --regions "$S/regions.txt" "$S/reference.tif" "$S"/image_*.tif) s"
# shellcheck disable=SC2086
echo "the same 48, seed mode, warm (the caches the cold run filled): $(XDG_CACHE_HOME=$out/cache/xdg \
    POCL_CACHE_DIR=$out/cache/pocl wall "$clx" offsets -q --device cpu --mode seed --regions "$S/regions.txt" "$S/reference.tif" "$S"/image_*.tif) s"

echo "== warm, from memory: images/s on the same images (48 x 50 windows of 100 x 100)"
for round in 1 2; do
    "$build/bench/clxcorr-throughput" --device cpu --repeat 96 --mode seed --regions "$S/regions.txt" \
        "$S/reference.tif" "$S"/image_*.tif
    "$build/bench/clxcorr-throughput" --device cpu --repeat 96 --mode accurate --regions "$S/regions.txt" \
        "$S/reference.tif" "$S"/image_*.tif
    python3 "$here/bench/peer_scipy.py" --ref "$S/reference.tif" --regions "$S/regions.txt" --repeat 96 \
        "$S"/image_*.tif
done

echo "== PIV-sized: one 1024 x 1024 pair, 32 x 32 windows every 16 px (3969 vectors)"
V=$out/vortex
[ -f "$V/frameB_0001.tif" ] || "$build/samples/clxcorr-samples" --out "$V" --piv vortex >/dev/null
for round in 1 2; do
    for mode in seed accurate; do
        printf 'clxcorr %s, one pass: ' $mode
        "$build/bench/clxcorr-piv-bench" --device cpu --step 16 --batches 4 --windows 32 --mode $mode \
            "$V/frameA_0001.tif" "$V/frameB_0001.tif" | tail -1
    done
    if python3 -c "import openpiv.pyprocess" 2>/dev/null; then
        python3 - "$V/frameA_0001.tif" "$V/frameB_0001.tif" <<'EOF'
import sys, time
import numpy as np, tifffile
from openpiv import pyprocess
a = tifffile.imread(sys.argv[1]).astype(np.int32)
b = tifffile.imread(sys.argv[2]).astype(np.int32)
best = 1e9
for _ in range(3):
    t = time.perf_counter()
    u, v, s2n = pyprocess.extended_search_area_piv(a, b, window_size=32, overlap=16, search_area_size=32,
                                                   sig2noise_method="peak2peak")
    best = min(best, time.perf_counter() - t)
print("openpiv extended_search_area_piv (32, overlap 16): %d vectors, best of 3: %.3f s, %.0f vectors/s (one process)"
      % (u.size, best, u.size / best))
EOF
    else
        echo "openpiv is not installed: pip install openpiv"
    fi
done
