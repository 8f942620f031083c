# bench/gpu-sample-set.sh - sourced by the GPU-host scripts (gpu-throughput.sh,
# gpu-tune.sh, gpu-multi.sh) after they set $build and $out: the kernels from
# this tree, the standard workload's sample set in $out/set (24 patterns of
# 900 x 900, 50 windows of 100 x 100) as $ref, $regions and $images, and tp,
# which runs bench/clxcorr-throughput on it with the options given.
here=$(cd "$(dirname "$0")/.." && pwd)
export CLXCORR_KERNEL_DIR="$here/cl"
mkdir -p "$out"
set_dir=$out/set
"$build/samples/clxcorr-samples" --out "$set_dir" --count 24 >/dev/null
images=$(ls "$set_dir"/image_*.tif)
regions=$set_dir/regions.txt
ref=$set_dir/reference.tif
tp() {
    # shellcheck disable=SC2086
    "$build/bench/clxcorr-throughput" --regions "$regions" "$@" "$ref" $images
}
