#!/bin/sh
# bench/gpu-short-jobs.sh - a short job's wall time, start-up included, for
# two builds side by side (say, before and after a change) on a GPU host:
# `clxcorr offsets` over 24,000 TIFFs already in the page cache (24 distinct
# 900x900 16-bit files listed 1,000 times, 50 windows of 100x100), seed and
# accurate mode, rounds alternating between the builds; kernels and method
# choices already cached (one untimed run of each first).
#
#   bench/gpu-short-jobs.sh OLD_DIR NEW_DIR [OUT_DIR] [DEVICE]   (after . .gpu-host/setup.sh)
#
# Each DIR holds bin/ (clxcorr, clxcorr-samples) and cl/ (its kernels);
# CLX_RUN_LIBS (optional) is put on the library path of those programs only.
# ROUNDS (3) rounds; COUNT (1000) repetitions of the 24 files.
set -eu
old=${1:?usage: bench/gpu-short-jobs.sh OLD_DIR NEW_DIR [OUT_DIR] [DEVICE]}
new=${2:?usage: bench/gpu-short-jobs.sh OLD_DIR NEW_DIR [OUT_DIR] [DEVICE]}
out=${3:-/tmp/clxcorr-short-jobs}
device=${4:-nvidia}
count=${COUNT:-1000}
mkdir -p "$out"

with() {
    dir=$1
    shift
    LD_LIBRARY_PATH="${CLX_RUN_LIBS:+$CLX_RUN_LIBS:}${LD_LIBRARY_PATH:-}" CLXCORR_KERNEL_DIR="$dir/cl" "$@"
}

set_dir=$out/set
with "$new" "$new/bin/clxcorr-samples" --out "$set_dir" --count 24 >/dev/null
i=0
while [ $i -lt "$count" ]; do
    ls "$set_dir"/image_*.tif
    i=$((i + 1))
done >"$out/list.txt"
n=$(wc -l <"$out/list.txt")
cat "$set_dir"/*.tif >/dev/null

offsets() {
    dir=$1
    shift
    with "$dir" "$dir/bin/clxcorr" offsets --device "$device" --regions "$set_dir/regions.txt" --list "$out/list.txt" \
        -o "$out/rows.csv" "$@" "$set_dir/reference.tif"
}

echo "== clxcorr offsets over $n TIFFs in the page cache, $device, wall time with start-up"
for mode in seed accurate; do
    for dir in "$old" "$new"; do
        offsets "$dir" --mode "$mode" 2>/dev/null    # kernels into the binary cache, method measured
    done
    for round in $(seq "${ROUNDS:-3}"); do
        for dir in "$old" "$new"; do
            start=$(date +%s.%N)
            offsets "$dir" --mode "$mode" -v 2>"$out/log"
            end=$(date +%s.%N)
            ready=$(grep "plans were ready" "$out/log" | sed 's/^clxcorr: //')
            echo "$mode round $round $(basename "$dir"): $(echo "$start $end $n" |
                awk '{ printf "%.2f s, %.0f patterns/s", $2 - $1, $3 / ($2 - $1) }'); $ready"
        done
    done
done
rows=$(($(wc -l <"$out/rows.csv") - 1))
echo "rows written by the last run: $rows (expected $((n * 50)))"

echo "== where the new build's time goes (one run each): process start, opening the device, set-up, images, closing"
t0=$(date +%s.%N)
with "$new" "$new/bin/clxcorr" --version >/dev/null
t1=$(date +%s.%N)
with "$new" "$new/bin/clxcorr" devices >/dev/null
t2=$(date +%s.%N)
echo "$t0 $t1 $t2" | awk '{ printf "clxcorr --version %.3f s; clxcorr devices (every platform opened) %.3f s\n", $2 - $1, $3 - $2 }'
for mode in seed accurate; do
    for o in "$out/rows.csv" /dev/null; do
        start=$(date +%s.%N)
        offsets "$new" --mode "$mode" -v --meta "$out/meta.json" -o "$o" 2>"$out/log"
        end=$(date +%s.%N)
        ready=$(sed -n 's/.* in \([0-9.]*\) s once the plans were ready.*/\1/p' "$out/log")
        tr -d ' \n' <"$out/meta.json" | sed 's/.*"seconds":{\([^}]*\)}.*/\1/' |
            awk -v w="$(echo "$start $end" | awk '{ print $2 - $1 }')" -v r="$ready" -v m="$mode" -v o="$o" -F'[:,]' \
            '{ printf "%s -o %s: wall %.3f s = outside the run %.3f + set-up %s + images %.3f + closing the output %.3f (meta %s)\n",
                  m, o, w, w - $2, $4, r, $6 - r, $0 }'
    done
done
