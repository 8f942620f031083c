#!/bin/sh
# bench/gpu-icgn.sh - the accurate mode's refinements on a GPU host, in one
# command: tests/test_icgn on the GPU; patterns/s on the standard workload
# (24 sample patterns of 900 x 900, 50 windows of 100 x 100, from memory,
# clx_stream_run as `clxcorr offsets` runs it) for seed mode, the
# correlation refinement with Lanczos-3 (the accurate mode before IC-GN)
# and IC-GN with each shape function and B-spline, next to peer_cupy on the
# same images; and the offsets' errors against the truth on the GPU for the
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
for round in 1 2; do
    tp --mode seed
    tp --mode accurate --refine correlation --interp lanczos3
    for interp in bspline5 bspline3; do
        for shape in 0 1; do
            tp --mode accurate --refine icgn --shape $shape --interp $interp
        done
    done
    # shellcheck disable=SC2086
    python3 "$here/.gpu-host/bench/peer_cupy.py" --ref "$set_dir/reference.tif" --regions "$set_dir/regions.txt" \
        --repeat "$repeat" $images
done

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
