#!/bin/sh
# bench/gpu-tune.sh - issue 5's acceptance figures on a GPU host, in one
# command: peer_cupy and clxcorr (seed and accurate, from pinned memory) with
# the shipped defaults; `clxcorr tune` for both modes on the same images;
# the same runs again with no option at all (the tuning file is read by
# every plan), and `clxcorr offsets` from TIFF files in the page cache.
# A fresh cache directory, so that only this run's tuning counts.
#
#   bench/gpu-tune.sh BUILD_DIR [OUT_DIR]      (after . .gpu-host/setup.sh)
set -eu
build=${1:?usage: bench/gpu-tune.sh BUILD_DIR [OUT_DIR]}
out=${2:-/tmp/clxcorr-tune}
export XDG_CACHE_HOME="$out/cache"
rm -rf "$XDG_CACHE_HOME"
. "$(dirname "$0")/gpu-sample-set.sh"
tp() {
    # shellcheck disable=SC2086
    "$build/bench/clxcorr-throughput" --device nvidia --regions "$regions" "$@" "$ref" $images
}
peer() {
    # shellcheck disable=SC2086
    python3 "$here/bench/peer_cupy.py" --ref "$ref" --regions "$regions" --repeat 16384 $images
}

echo "== shipped defaults, from memory"
tp --repeat 16384
tp --mode accurate --repeat 8192
peer
echo "== clxcorr tune (seed, then accurate) on the sample set"
# shellcheck disable=SC2086
"$build/src/clxcorr" tune --device nvidia --mode seed --regions "$regions" "$ref" $images
# shellcheck disable=SC2086
"$build/src/clxcorr" tune --device nvidia --mode accurate --regions "$regions" "$ref" $images
"$build/src/clxcorr" tune --show
echo "== after tuning, no options: from memory"
tp --repeat 16384
tp --mode accurate --repeat 8192
peer
echo "== after tuning, no options: from TIFF files in the page cache (24000 = the 24 files x 1000)"
for i in $(seq 1000); do printf '%s\n' $images; done >"$out/list.txt"
cat "$set_dir"/*.tif >/dev/null
for mode in seed accurate; do
    "$build/src/clxcorr" offsets -v --explain --mode $mode --device nvidia --regions "$regions" \
        --list "$out/list.txt" "$ref" 2>"$out/files.$mode.log" >"$out/files.$mode.csv"
    grep -E "parameters:|plans were ready" "$out/files.$mode.log" | sed "s/^clxcorr: /$mode: /"
done
