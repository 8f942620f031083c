#!/bin/sh
# bench/gpu-accurate-sweep.sh - the accurate mode's batch and lanes on a GPU
# host, measured beside peer_cupy in interleaved rounds (issue 36: the
# defaults were vendor-wide constants, not chosen by measurement): patterns/s
# from memory through clx_stream_run (clxcorr-throughput) for each lanes x
# batch, and the default (the plan's own batch, the stream's own lanes), on
# the sample set (900x900 16-bit, 50 windows of 100x100); then the stage
# times of one batch (clxcorr bench's profiling run) and clxcorr bench's own
# figures for the same workload.
#
#   bench/gpu-accurate-sweep.sh BIN_DIR [OUT_DIR] [DEVICE]   (after . .gpu-host/setup.sh)
#
# BIN_DIR holds clxcorr, clxcorr-throughput and clxcorr-samples;
# CLXCORR_KERNEL_DIR is the caller's; CLX_RUN_LIBS (optional) goes on the
# library path of clxcorr's programs only. ROUNDS (3), REPEAT (8192),
# MODE (accurate; seed sweeps the seed mode the same way), LANES (2 3 4 8),
# BATCHES (64 128 256).
set -eu
bin=${1:?usage: bench/gpu-accurate-sweep.sh BIN_DIR [OUT_DIR] [DEVICE]}
out=${2:-/tmp/clxcorr-accurate-sweep}
device=${3:-nvidia}
repeat=${REPEAT:-8192}
here=$(cd "$(dirname "$0")/.." && pwd)
run() {
    LD_LIBRARY_PATH="${CLX_RUN_LIBS:+$CLX_RUN_LIBS:}${LD_LIBRARY_PATH:-}" "$@"
}
mkdir -p "$out"
set_dir=$out/set
run "$bin/clxcorr-samples" --out "$set_dir" --count 24 >/dev/null
images=$(ls "$set_dir"/image_*.tif)
through() {
    # shellcheck disable=SC2086
    run "$bin/clxcorr-throughput" --device "$device" --mode "${MODE:-accurate}" --repeat "$repeat" "$@" \
        --regions "$set_dir/regions.txt" "$set_dir/reference.tif" $images
}
through >/dev/null 2>&1    # kernels into the binary cache

for round in $(seq "${ROUNDS:-3}"); do
    echo "== round $round"
    # shellcheck disable=SC2086
    python3 "$here/bench/peer_cupy.py" --ref "$set_dir/reference.tif" --regions "$set_dir/regions.txt" \
        --repeat "$repeat" $images
    printf 'defaults: '
    through
    for lanes in ${LANES:-2 3 4 8}; do
        for batch in ${BATCHES:-64 128 256}; do
            printf 'lanes %s batch %s: ' "$lanes" "$batch"
            through --lanes "$lanes" --batch "$batch"
        done
    done
done
echo "== clxcorr bench, ebsd-900 (the same shapes), both modes"
run "$bin/clxcorr" bench --device "$device" --workload ebsd-900 -q
