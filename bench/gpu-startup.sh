#!/bin/sh
# bench/gpu-startup.sh - two builds side by side on a GPU host (say, before
# and after a change): the set-up time of a 3-lane `clxcorr offsets` run
# (process start to the plans ready, from --meta's seconds.set_up; median of
# alternating runs, kernels already in the binary cache), the programs each
# makes (-vv's build lines), and patterns/s from memory, next to peer_cupy
# on the same images.
#
#   bench/gpu-startup.sh OLD_DIR NEW_DIR [OUT_DIR] [DEVICE]   (after . .gpu-host/setup.sh)
#
# Each DIR holds bin/ (clxcorr, clxcorr-throughput, clxcorr-samples), lib/
# (libclxcorr.so*, or nothing for a --disable-shared build) and cl/ (its
# kernels): a build without libtool's wrappers, small enough to carry.
# CLX_RUN_LIBS (optional) goes on the library path of clxcorr's programs
# only (HDF5's runtime libraries, where the host has none). DEVICE defaults to nvidia; REPEAT (16384)
# patterns are timed in seed mode, half as many in accurate mode.
set -eu
old=${1:?usage: bench/gpu-startup.sh OLD_DIR NEW_DIR [OUT_DIR] [DEVICE]}
new=${2:?usage: bench/gpu-startup.sh OLD_DIR NEW_DIR [OUT_DIR] [DEVICE]}
out=${3:-/tmp/clxcorr-startup}
device=${4:-nvidia}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"

# With one build's library and kernels.
with() {
    dir=$1
    shift
    LD_LIBRARY_PATH="$dir/lib${CLX_RUN_LIBS:+:$CLX_RUN_LIBS}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        CLXCORR_KERNEL_DIR="$dir/cl" "$@"
}

set_dir=$out/set
with "$new" "$new/bin/clxcorr-samples" --out "$set_dir" --count 24 >/dev/null
images=$(ls "$set_dir"/image_*.tif)
ref=$set_dir/reference.tif
regions=$set_dir/regions.txt

offsets() {
    dir=$1
    shift
    # shellcheck disable=SC2086
    with "$dir" "$dir/bin/clxcorr" offsets --device "$device" --lanes 3 --batch 4 --regions "$regions" "$@" \
        "$ref" $images >/dev/null
}

echo "== set-up of a 3-lane offsets run (24 images, 50 windows of 100x100, batches of 4), $device"
for mode in seed accurate; do
    for dir in "$old" "$new"; do
        offsets "$dir" --mode "$mode" 2>/dev/null    # compiles into the binary cache, measures the method
        made=$(offsets "$dir" --mode "$mode" -vv 2>&1 | grep -c 'clxcorr: build [a-z_]*\.cl: ' || true)
        echo "$mode $(basename "$dir"): $made programs made (compiled or loaded) by the run"
    done
    : >"$out/$mode.old" && : >"$out/$mode.new"
    for _ in 1 2 3 4 5 6 7; do
        for which in old new; do
            eval dir=\$$which
            offsets "$dir" --mode "$mode" --meta "$out/meta.json" 2>/dev/null
            sed -n 's/.*"set_up": *\([0-9.]*\).*/\1/p' "$out/meta.json" >>"$out/$mode.$which"
        done
    done
    for which in old new; do
        median=$(sort -n "$out/$mode.$which" | sed -n 4p)
        echo "$mode $which: set-up median ${median} s of 7 ($(sort -n "$out/$mode.$which" | tr '\n' ' '))"
    done
done

echo "== patterns/s from memory through clx_stream_run, 3 lanes"
for mode in seed accurate; do
    repeat=${REPEAT:-16384}
    [ "$mode" = accurate ] && repeat=$((repeat / 2))
    for dir in "$old" "$new"; do
        # shellcheck disable=SC2086
        printf '%s %s: ' "$mode" "$(basename "$dir")"
        with "$dir" "$dir/bin/clxcorr-throughput" --device "$device" --mode "$mode" --repeat $repeat --lanes 3 \
            --regions "$regions" "$ref" $images
    done
done
echo "== peer_cupy, same images"
# shellcheck disable=SC2086
python3 "$here/bench/peer_cupy.py" --ref "$ref" --regions "$regions" --repeat "${REPEAT:-16384}" $images
