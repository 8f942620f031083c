#!/bin/sh
# bench/gpu-throughput.sh - the overlapped pipeline on a GPU host, in one
# command: patterns/s from memory through clx_stream_run (one lane, as the
# plan loop ran before, and several), with either FFT library and either
# form of the FFT path (fft_pack), seed and accurate modes, next to
# peer_cupy on the same images; then from TIFF files in the page cache
# through `clxcorr offsets`; PoCL (the host's cores) for scale; and the
# agreement of the two FFT libraries on the sample set.
#
#   bench/gpu-throughput.sh BUILD_DIR [OUT_DIR]      (after . .gpu-host/setup.sh)
set -eu
build=${1:?usage: bench/gpu-throughput.sh BUILD_DIR [OUT_DIR]}
out=${2:-/tmp/clxcorr-throughput}
. "$(dirname "$0")/gpu-sample-set.sh"

echo "== seed mode from memory, NVIDIA (16384 patterns each)"
for fft in clfft vkfft; do
    for lanes in 1 2 3 4; do
        tp --device nvidia --repeat 16384 --lanes $lanes --param fft=$fft
    done
done
tp --device nvidia --repeat 16384 --lanes 3 --batch 64 --param fft=vkfft
tp --device nvidia --repeat 16384 --lanes 3 --batch 256 --param fft=vkfft
echo "== seed mode from memory, NVIDIA: fft_pack=1 (two windows per C2C FFT) against 0, each library, twice"
for _ in 1 2; do
    for fft in clfft vkfft; do
        for pack in 0 1; do
            tp --device nvidia --repeat 16384 --lanes 3 --method fft --param fft=$fft,fft_pack=$pack
        done
    done
done
echo "== accurate mode from memory, NVIDIA (8192 patterns each)"
for fft in clfft vkfft; do
    for lanes in 1 3; do
        tp --device nvidia --mode accurate --repeat 8192 --lanes $lanes --param fft=$fft
    done
done
echo "== peer_cupy, same images"
# shellcheck disable=SC2086
python3 "$here/bench/peer_cupy.py" --ref "$ref" --regions "$regions" --repeat 16384 $images

echo "== from TIFF files in the page cache: 24000 images (the 24 files x 1000) through clxcorr offsets"
for i in $(seq 1000); do printf '%s\n' $images; done >"$out/list.txt"
cat "$set_dir"/*.tif >/dev/null
for mode in seed accurate; do
    for fft in clfft vkfft; do
        start=$(date +%s.%N)
        "$build/src/clxcorr" offsets -v --mode $mode --device nvidia --fft $fft --regions "$regions" \
            --list "$out/list.txt" "$ref" 2>"$out/files.$mode.$fft.log" >"$out/files.$mode.$fft.csv"
        end=$(date +%s.%N)
        echo "clxcorr offsets $mode --fft $fft from files: $(echo "$start $end" | awk '{ printf "%.1f patterns/s with start-up (%.2f s)", 24000 / ($2 - $1), $2 - $1 }'); $(grep "plans were ready" "$out/files.$mode.$fft.log" | sed 's/^clxcorr: //')"
    done
done
echo "clfft vs vkfft rows (seed): $(paste -d, "$out/files.seed.clfft.csv" "$out/files.seed.vkfft.csv" | awk -F, 'NR > 1 { for (i = 5; i <= 6; i++) { d = $i - $(i + 8); if (d < 0) d = -d; if (d > m) m = d } if ($8 != $16) f++ } END { printf "max |d| %.3g px, flag differences %d, rows %d", m, f, NR - 1 }')"

echo "== PoCL on the host's cores (seed and accurate, 512 and 256 patterns)"
tp --device portable --repeat 512
tp --device portable --repeat 512 --param fft=vkfft
tp --device portable --mode accurate --repeat 256
