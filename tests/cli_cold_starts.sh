#!/bin/sh
# Three cold starts at once sharing one kernel cache (a job array's first
# tasks): each compiles and stores the kernels while the others do, through
# clx_output's whole-file renames, and all three write the output a warm
# run writes, byte for byte. Users rely on this with job arrays.
. "$TESTS_SRCDIR/lib.sh"
# clxcorr's caches start empty below, PoCL's compiler cache stays where it is:
# an XDG_CACHE_HOME of the test's own would move PoCL's too, and every run
# would compile every kernel from source, minutes on two cores (issue 37).
POCL_CACHE_DIR=${POCL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pocl}
export POCL_CACHE_DIR
need_device
make_small_set "$TMP/set" 4
S=$TMP/set
XDG_CACHE_HOME=$TMP/cache
export XDG_CACHE_HOME
run() {
    "$CLXCORR" offsets --mode seed --method direct --regions "$S/regions.txt" "$@" "$S/reference.tif" "$S"/image_000*.tif
}
for k in 1 2 3; do
    run -o "$TMP/cold$k.csv" 2>"$TMP/cold$k.err" &
    eval "pid$k=\$!"
done
status=0
for k in 1 2 3; do
    eval "wait \$pid$k" || { status=1; fail "cold start $k: $(cat "$TMP/cold$k.err")"; }
done
run -o "$TMP/warm.csv" 2>"$TMP/warm.err" || fail "the warm run: $(cat "$TMP/warm.err")"
n=$(ls "$TMP/cache/clxcorr/kernels" 2>/dev/null | grep -vc '\.tmp$')
left=$(ls "$TMP/cache/clxcorr/kernels" 2>/dev/null | grep -c '\.tmp$')
if [ "$status" -eq 0 ] && cmp -s "$TMP/cold1.csv" "$TMP/warm.csv" && cmp -s "$TMP/cold2.csv" "$TMP/warm.csv" \
    && cmp -s "$TMP/cold3.csv" "$TMP/warm.csv"; then
    pass "three cold starts sharing one cache: identical output, $n cached kernels"
else
    fail "three cold starts: outputs differ"
fi
[ "$left" -eq 0 ] && pass "no temporary left in the cache" || fail "$left temporaries left in the cache"
finish
