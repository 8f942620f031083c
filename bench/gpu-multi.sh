#!/bin/sh
# bench/gpu-multi.sh - several GPUs in one process (issue 6), in one
# command on a host with two or more GPUs: patterns/s of the standard
# workload (the 24 sample patterns, 900x900 16-bit, 50 windows of 100x100)
# on the first GPU alone and on every GPU at once, from memory through
# clx_stream_run_devices (bench/throughput.c) and from TIFF files in the
# page cache through `clxcorr offsets --device all`, and as one process per
# GPU (`--shard K/N --device` at once, then `clxcorr merge`), next to
# peer_cupy on the same images (on one GPU, as it runs). Runs from memory
# twice, for the noise.
#
#   bench/gpu-multi.sh BUILD_DIR [OUT_DIR]      (after . .gpu-host/setup.sh)
set -eu
build=${1:?usage: bench/gpu-multi.sh BUILD_DIR [OUT_DIR]}
out=${2:-/tmp/clxcorr-multi}
. "$(dirname "$0")/gpu-sample-set.sh"
clx="$build/src/clxcorr"

"$clx" devices
# The GPUs as P:D, from `clxcorr devices`.
gpus=$("$clx" devices | awk '/^[0-9]+:[0-9]+ / { pd = $1 } /^ *type: *GPU/ { print pd }' | paste -sd, -)
first=${gpus%%,*}
ngpus=$(echo "$gpus" | tr ',' '\n' | wc -l)
echo "GPUs: $gpus ($ngpus)"
nvidia-smi --query-gpu=index,name,pci.bus_id --format=csv,noheader 2>/dev/null || true

echo "== seed mode from memory: one GPU (65536 patterns), then all $ngpus (131072), then one stream per GPU"
for _ in 1 2; do
    tp --device "$first" --repeat 65536
    tp --device "$gpus" --repeat 131072
    tp --device "$gpus" --repeat 131072 --separate
done
echo "== accurate mode from memory: one GPU (16384 patterns), then all (32768)"
for _ in 1 2; do
    tp --device "$first" --mode accurate --repeat 16384
    tp --device "$gpus" --mode accurate --repeat 32768
done
echo "== peer_cupy, same images, one GPU"
# shellcheck disable=SC2086
python3 "$here/bench/peer_cupy.py" --ref "$ref" --regions "$regions" --repeat 16384 $images

echo "== from TIFF files in the page cache through clxcorr offsets: 48000 images (the 24 files x 2000)"
for i in $(seq 2000); do printf '%s\n' $images; done >"$out/list.txt"
cat "$set_dir"/*.tif >/dev/null
for mode in seed accurate; do
    for dev in "$first" all; do
        start=$(date +%s.%N)
        "$clx" offsets -v --mode $mode --device $dev --regions "$regions" --list "$out/list.txt" "$ref" \
            2>"$out/files.$mode.$dev.log" >"$out/files.$mode.$dev.csv"
        end=$(date +%s.%N)
        echo "clxcorr offsets $mode --device $dev from files: $(echo "$start $end" | awk '{ printf "%.1f patterns/s with start-up (%.2f s)", 48000 / ($2 - $1), $2 - $1 }'); $(grep -E "plans were ready|device [0-9]+ \(" "$out/files.$mode.$dev.log" | sed 's/^clxcorr: //' | paste -sd';' -)"
    done
    cmp -s "$out/files.$mode.$first.csv" "$out/files.$mode.all.csv" \
        && echo "$mode: rows from one GPU and from all identical" \
        || echo "$mode: rows from one GPU and from all DIFFER"
done

echo "== one process per GPU: offsets --shard K/$ngpus --device GPU_K at once, then merge (seed, from files)"
start=$(date +%s.%N)
k=0
for dev in $(echo "$gpus" | tr ',' ' '); do
    k=$((k + 1))
    "$clx" offsets --mode seed --device "$dev" --shard "$k/$ngpus" --regions "$regions" --list "$out/list.txt" \
        -o "$out/shard$k.csv" "$ref" &
done
wait
mid=$(date +%s.%N)
"$clx" merge -o "$out/shards.seed.csv" "$out"/shard*.csv
end=$(date +%s.%N)
echo "shards on $ngpus GPUs: $(echo "$start $mid $end" | awk '{ printf "%.1f patterns/s with start-up (%.2f s), merge %.2f s", 48000 / ($2 - $1), $2 - $1, $3 - $2 }')"
cmp -s "$out/shards.seed.csv" "$out/files.seed.$first.csv" && echo "merged shards identical to the one-GPU run" \
    || echo "merged shards DIFFER from the one-GPU run"
