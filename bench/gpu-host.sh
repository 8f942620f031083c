#!/bin/sh
# bench/gpu-host.sh - the seed pipeline on a GPU host, in one command:
# agreement of the GPU with PoCL and with the double-precision host reference
# on the sample set, then patterns/s of clxcorr (GPU and PoCL) next to the
# CuPy + cuFFT reference (bench/peer_cupy.py) on the same images.
#
#   bench/gpu-host.sh BUILD_DIR [OUT_DIR]
#
# BUILD_DIR is a build of this tree (configure --disable-shared keeps it
# self-contained); the GPU host's setup (../shared/gpu-host/README.md) must
# be sourced first: . .gpu-host/setup.sh
set -eu
build=${1:?usage: bench/gpu-host.sh BUILD_DIR [OUT_DIR]}
out=${2:-/tmp/clxcorr-bench}
here=$(cd "$(dirname "$0")/.." && pwd)
export CLXCORR_KERNEL_DIR="$here/cl"
mkdir -p "$out"
set_dir=$out/set

echo "== devices"
"$build/src/clxcorr" devices

echo "== sample set: 900x900 16-bit, 50 windows of 100x100, 24 images"
"$build/samples/clxcorr-samples" --out "$set_dir" --count 24
images=$(ls "$set_dir"/image_*.tif)

echo "== agreement on the sample set (seed mode)"
# shellcheck disable=SC2086
"$build/src/clxcorr" offsets --mode seed --device nvidia --regions "$set_dir/regions.txt" "$set_dir/reference.tif" $images >"$out/gpu.csv"
# shellcheck disable=SC2086
"$build/src/clxcorr" offsets --mode seed --device portable --regions "$set_dir/regions.txt" "$set_dir/reference.tif" $images >"$out/pocl.csv"
# shellcheck disable=SC2086
"$build/tests/clxcorr-ref" --regions "$set_dir/regions.txt" "$set_dir/reference.tif" $images >"$out/ref.csv"
maxdiff() {
    paste -d, "$1" "$2" | awk -F, 'NR > 1 { for (i = 5; i <= 6; i++) { d = $i - $(i + 8); if (d < 0) d = -d; if (d > m) m = d }
        if ($8 != $16) f++ } END { printf "max |d(dx,dy)| = %.3g px, flag differences %d, rows %d\n", m, f, NR - 1 }'
}
echo "GPU vs PoCL:           $(maxdiff "$out/gpu.csv" "$out/pocl.csv")"
echo "GPU vs host reference: $(maxdiff "$out/gpu.csv" "$out/ref.csv")"

echo "== throughput from memory (patterns/s)"
# shellcheck disable=SC2086
"$build/bench/clxcorr-throughput" --device nvidia --repeat 16384 --regions "$set_dir/regions.txt" \
    "$set_dir/reference.tif" $images | tee "$out/throughput.txt"
for b in 32 256; do
    # shellcheck disable=SC2086
    "$build/bench/clxcorr-throughput" --device nvidia --batch $b --repeat 16384 --regions "$set_dir/regions.txt" \
        "$set_dir/reference.tif" $images | tee -a "$out/throughput.txt"
done
# shellcheck disable=SC2086
"$build/bench/clxcorr-throughput" --device portable --repeat 512 --regions "$set_dir/regions.txt" \
    "$set_dir/reference.tif" $images | tee -a "$out/throughput.txt"
# shellcheck disable=SC2086
python3 "$here/bench/peer_cupy.py" --ref "$set_dir/reference.tif" --regions "$set_dir/regions.txt" \
    --repeat 16384 --csv "$out/peer.csv" $images | tee -a "$out/throughput.txt"

echo "== from files in the page cache: 2400 images (the 24 files x 100) through clxcorr offsets"
for i in $(seq 100); do printf '%s\n' $images; done >"$out/list.txt"
cat "$set_dir"/*.tif >/dev/null
start=$(date +%s.%N)
"$build/src/clxcorr" offsets --device nvidia --regions "$set_dir/regions.txt" --list "$out/list.txt" \
    "$set_dir/reference.tif" >"$out/files.csv"
end=$(date +%s.%N)
echo "clxcorr offsets from files: $(echo "$start $end" | awk '{ printf "%.1f patterns/s (%.2f s for 2400, start-up included)", 2400 / ($2 - $1), $2 - $1 }')"

echo "== peer_cupy vs clxcorr GPU offsets, seed mode (both zero and flag fits without a maximum in range)"
awk -F, 'NR == FNR { if (FNR > 1) { k = $1 "," $2; a[k] = $5; b[k] = $6 }; next }
    FNR > 1 { k = $1 "," $2; if (k in a) { d = a[k] - $3; e = b[k] - $4; if (d < 0) d = -d; if (e < 0) e = -e;
        if (d > m) m = d; if (e > m) m = e; n++; if (d > 1e-3 || e > 1e-3) big++ } }
    END { printf "rows %d, max |d| %.3g px, rows over 1e-3 px: %d\n", n, m, big }' "$out/gpu.csv" "$out/peer.csv"
