#!/bin/sh
# bench/gpu-piv.sh - PIV on a GPU host, in one command:
# - the vortex pair of issue #13 (clxcorr-samples --piv vortex: 1024 x 1024,
#   Lamb-Oseen, core radius 64 px, 8 px at the peak) measured by clxcorr
#   offsets with three deforming passes (64,32,32, a window every 16 px: 32 x
#   32 final windows overlapping by half) and with one 32 px pass, on the
#   GPU and on this host's CPU (PoCL), and by OpenPIV's windef with the same
#   windows on this host's CPU when it is installed here; the errors of each
#   against the truth (bench/piv_vortex.py);
# - vectors/s through the deforming passes from memory (clxcorr-piv-bench)
#   for the default accurate mode (IC-GN), without refinement, and seed mode;
# - pairs against one reference: images/s of the same 3969 windows with
#   every frame B against its own frame A (--pairs) and against one
#   reference, next to peer_cupy (CuPy + cuFFT, one reference) on the same
#   images.
#
#   bench/gpu-piv.sh BIN_DIR [OUT_DIR]      (after . .gpu-host/setup.sh)
#
# BIN_DIR holds clxcorr, clxcorr-samples, clxcorr-piv-bench and
# clxcorr-throughput (a --disable-shared build's programs). A GPU host
# without network gets OpenPIV as its Python sources on PYTHONPATH (its
# wheel's openpiv/*.py and dist-info, with imageio, natsort and tqdm, the
# host having numpy, scipy and scikit-image): bench/results/piv-vortex-results.txt.
set -eu
bin=${1:?usage: bench/gpu-piv.sh BIN_DIR [OUT_DIR]}
out=${2:-/tmp/clxcorr-piv}
here=$(cd "$(dirname "$0")/.." && pwd)
export CLXCORR_KERNEL_DIR="$here/cl"
repeat=${REPEAT:-4096}
mkdir -p "$out"
V=$out/vortex
"$bin/clxcorr-samples" --out "$V" --piv vortex >/dev/null
A=$V/frameA_0001.tif B=$V/frameB_0001.tif

timed() {
    name=$1
    shift
    t0=$(date +%s%N)
    "$@"
    t1=$(date +%s%N)
    echo "$name: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 1e9 }') s wall"
}
echo "== clxcorr offsets on the vortex pair"
for dev in nvidia cpu; do
    for run in 1 2; do
        timed "$dev three passes, run $run" "$bin/clxcorr" offsets -q --device $dev --reference pairs --grid-step 16 \
            --window 64,32,32 -o "$out/passes-$dev.csv" "$A" "$B"
    done
    timed "$dev one pass" "$bin/clxcorr" offsets -q --device $dev --reference pairs --grid-step 16 --window 32 \
        -o "$out/one-$dev.csv" "$A" "$B"
done
fields="clxcorr-gpu-3-passes=$out/passes-nvidia.csv clxcorr-cpu-3-passes=$out/passes-cpu.csv"
fields="$fields clxcorr-gpu-1-pass=$out/one-nvidia.csv clxcorr-cpu-1-pass=$out/one-cpu.csv"

echo "== OpenPIV windef (64,32,32, overlap 32,16,16) on this host's CPU"
if python3 -c "import openpiv.windef" 2>/dev/null; then
    python3 "$here/bench/piv_vortex.py" openpiv "$A" "$B" "$out/openpiv.csv" --repeat 3
    fields="$fields openpiv-windef=$out/openpiv.csv"
else
    echo "openpiv is not installed on this host: see bench/results/piv-vortex-results.txt for its run on the build machine"
fi

echo "== errors against the truth"
# shellcheck disable=SC2086
python3 "$here/bench/piv_vortex.py" errors "$V/truth_field.csv" --flow "$V/flow.txt" $fields

echo "== vectors/s through the deforming passes, from memory (GPU)"
pb() {
    "$bin/clxcorr-piv-bench" --device nvidia --step 16 --batches 40 "$@" "$A" "$B"
}
for round in 1 2; do
    echo "-- round $round"
    pb --windows 64,32,32
    pb --windows 64,32,32 --refine none
    pb --windows 64,32,32 --mode seed
    pb --windows 32
    pb --windows 32 --mode seed
done

echo "== pairs against one reference: images/s, 3969 windows of 32 x 32 (GPU, from memory, REPEAT=$repeat)"
tp() {
    "$bin/clxcorr-throughput" --device nvidia --repeat "$repeat" --regions "$V/regions.txt" "$@" "$A" "$B"
}
for round in 1 2; do
    echo "-- round $round"
    tp --mode seed
    tp --mode seed --pairs
    tp --mode accurate
    tp --mode accurate --pairs
    python3 "$here/bench/peer_cupy.py" --ref "$A" --regions "$V/regions.txt" --repeat "$repeat" "$B"
done
