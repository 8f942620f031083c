#!/bin/sh
# bench/gpu-icgn.sh - the accurate mode's refinements on a GPU host, in one
# command: tests/test_icgn on the GPU; patterns/s on the standard workload
# (24 sample patterns of 900 x 900, 50 windows of 100 x 100, from memory,
# clx_stream_run as `clxcorr offsets` runs it) for seed mode, the accurate
# mode before IC-GN (background:8, correlation refinement with Lanczos-3,
# two passes), the default and its variants (a window-offset pass, shape 0,
# the cubic B-spline, smaller work-groups), next to peer_cupy on the same
# images; clxcorr bench's stage times; and the offsets' errors on the GPU for the
# same choices (the Kikuchi set with strain, the speckle set), to show the
# GPU computes what PoCL does.
#
#   bench/gpu-icgn.sh BIN_DIR [OUT_DIR]      (after . .gpu-host/setup.sh)
#
# BIN_DIR holds clxcorr, clxcorr-throughput, clxcorr-samples and test_icgn
# (a --disable-shared build's programs); the kernels come from this tree.
set -eu
bin=${1:?usage: bench/gpu-icgn.sh BIN_DIR [OUT_DIR]}
out=${2:-/tmp/clxcorr-icgn}
here=$(cd "$(dirname "$0")/.." && pwd)
export CLXCORR_KERNEL_DIR="$here/cl"
repeat=${REPEAT:-8192}
mkdir -p "$out"

echo "== test_icgn on the GPU"
if CLXCORR_DEVICE=nvidia "$bin/test_icgn" >"$out/test_icgn.log" 2>&1; then echo "passed"; else echo "FAILED"; fi
tail -3 "$out/test_icgn.log"

set_dir=$out/set
"$bin/clxcorr-samples" --out "$set_dir" --count 24 >/dev/null
images=$(ls "$set_dir"/image_*.tif)
tp() {
    # shellcheck disable=SC2086
    "$bin/clxcorr-throughput" --device nvidia --repeat "$repeat" --regions "$set_dir/regions.txt" "$@" \
        "$set_dir/reference.tif" $images
}

echo "== patterns/s on the GPU, from memory (REPEAT=$repeat), two rounds"
# "before IC-GN" is the accurate mode as it was: background:8, the
# correlation refinement with Lanczos-3, two passes.
for round in 1 2; do
    tp --mode seed
    tp --mode accurate --refine correlation --interp lanczos3 --passes 2 --prefilter background:8
    tp --mode accurate
    tp --mode accurate --passes 2
    tp --mode accurate --shape 0
    tp --mode accurate --interp bspline3
    tp --mode accurate --param icgn_wg=128
    tp --mode accurate --param icgn_wg=64
    # shellcheck disable=SC2086
    python3 "$here/bench/peer_cupy.py" --ref "$set_dir/reference.tif" --regions "$set_dir/regions.txt" \
        --repeat "$repeat" $images
done

echo "== stage times of the default accurate mode (clxcorr bench, ebsd-900)"
"$bin/clxcorr" bench --device nvidia --workload ebsd-900 --mode accurate --files 0 --seconds 1 -q

echo "== offsets' errors on the GPU (bench/offset_error.awk: rms of the error vector, per axis, max)"
"$bin/clxcorr-samples" --out "$out/speckle" --kind speckle --step 0.05 --count 21 >/dev/null
for s in set speckle; do
    d=$out/$s
    [ "$s" = set ] && d=$set_dir
    for choice in "--refine correlation --interp lanczos3" "--shape 0" "--shape 1"; do
        # shellcheck disable=SC2086
        "$bin/clxcorr" offsets -q --device nvidia $choice --regions "$d/regions.txt" "$d/reference.tif" \
            "$d"/image_*.tif >"$out/err.csv"
        printf '%-8s %-40s %s\n' "$s" "$choice" "$(awk -F, -f "$here/bench/offset_error.awk" "$d/truth.csv" "$out/err.csv")"
    done
done
