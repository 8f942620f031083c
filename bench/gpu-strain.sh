#!/bin/sh
# bench/gpu-strain.sh - strain against offsets on a GPU host, in one command:
# patterns/s of `clxcorr strain` and `clxcorr offsets` (the same correlation,
# accurate mode with strain's Tukey window) over one h5ebsd file of 4096
# patterns of 900 x 900 (64 x 64 points, 32 synthetic Kikuchi patterns
# written again and again), 36 windows of 128 x 128, twice each, beside
# peer_cupy on the same 32 patterns as TIFFs.
#
#   bench/gpu-strain.sh BIN_DIR [DATA_DIR]
# BIN_DIR holds clxcorr, clxcorr-samples and clxcorr-h5ebsd-write;
# CLXCORR_KERNEL_DIR and the library path are the caller's (gpu-host README),
# CLX_RUN_LIBS (optional) is put on the library path of clxcorr's commands
# only (HDF5's runtime libraries, where the host has none).
set -eu
bin=${1:?usage: bench/gpu-strain.sh BIN_DIR [DATA_DIR]}
out=${2:-/tmp/clxcorr-strain}
here=$(cd "$(dirname "$0")/.." && pwd)
run() {
    LD_LIBRARY_PATH="${CLX_RUN_LIBS:+$CLX_RUN_LIBS:}${LD_LIBRARY_PATH:-}" "$@"
}
mkdir -p "$out"
set_dir=$out/set
run "$bin/clxcorr-samples" --kikuchi --out "$set_dir" --size 900x900 --count 32 --grid 6x6 --window 128x128 \
    --margin 64 --strain 1e-3 --rotation 0.5 >/dev/null
run "$bin/clxcorr-h5ebsd-write" "$out/scan.h5" 64 64 "$set_dir"/image_*.tif
cat "$out/scan.h5" >/dev/null
run "$bin/clxcorr" devices | grep -i "nvidia\|name" | head -3
geometry="--pc 0.5,0.35,0.65 --sample-tilt 70 --detector-tilt 10"
for round in 1 2; do
    for cmd in offsets strain; do
        start=$(date +%s.%N)
        # shellcheck disable=SC2086
        run "$bin/clxcorr" $cmd -v --device nvidia --window-fn tukey:0.5 \
            $([ $cmd = strain ] && echo "$geometry") --regions "$set_dir/regions.txt" -o "$out/$cmd.csv" \
            "$set_dir/reference.tif" "$out/scan.h5" 2>"$out/$cmd.log"
        end=$(date +%s.%N)
        echo "round $round: clxcorr $cmd over scan.h5: $(echo "$start $end" | awk '{ printf "%.1f patterns/s with start-up (%.2f s)", 4096 / ($2 - $1), $2 - $1 }'); $(grep "plans were ready" "$out/$cmd.log" | sed 's/^clxcorr: //')"
    done
done
echo "rows: offsets $(($(wc -l <"$out/offsets.csv") - 1)), strain $(($(wc -l <"$out/strain.csv") - 1)); strain flags: $(awk -F, 'NR > 1 { n[$NF]++ } END { for (f in n) printf "%s:%d ", f, n[f] }' "$out/strain.csv")"
echo "== peer_cupy, the same 32 patterns (TIFF), 4096 times"
# shellcheck disable=SC2046
python3 "$here/bench/peer_cupy.py" --ref "$set_dir/reference.tif" --regions "$set_dir/regions.txt" \
    --repeat 4096 $(ls "$set_dir"/image_*.tif)
