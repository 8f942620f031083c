#!/bin/sh
# mpirun -n N clxcorr offsets: the ranks share the images and rank 0
# writes one CSV byte-identical to the single-process run. A rank that
# fails in the middle makes the run fail, naming the rank and the image,
# with every row before that image (and none after) in FILE.part; a rank
# whose device does not open stops every rank before any image.
# Skipped when the build has no MPI or no mpirun was found.
. "$TESTS_SRCDIR/lib.sh"
need_device
if ! "$CLXCORR" --version | grep -q ' mpi '; then
    echo "SKIP: this build has no MPI (configure --with-mpi)"
    exit 77
fi
if [ -z "${MPIRUN:-}" ]; then
    echo "SKIP: no mpirun found by configure"
    exit 77
fi
# CI runs as root; one core may host several ranks.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# In a sanitizer build, no leak check under mpirun: Open MPI's plugins,
# unloaded at MPI_Finalize, leave allocations LeakSanitizer can neither
# attribute nor suppress by name. clxcorr's own code on these paths is
# leak-checked by the single-process tests; ASan and UBSan stay on here.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS
make_small_set "$TMP/set" 9
S=$TMP/set
run() {
    "$CLXCORR" offsets --mode seed --method fft --regions "$S/regions.txt" "$@"
}
mpi() {
    n=$1
    shift
    "$MPIRUN" -n "$n" "$CLXCORR" offsets --mode seed --method fft --regions "$S/regions.txt" "$@"
}
run "$S/reference.tif" "$S"/image_*.tif >"$TMP/one.csv" || fail "single process"
mpi 2 -o "$TMP/mpi2.csv" "$S/reference.tif" "$S"/image_*.tif 2>"$TMP/err" \
    && cmp -s "$TMP/mpi2.csv" "$TMP/one.csv" && pass "mpirun -n 2: byte-identical to the single process" \
    || fail "mpirun -n 2 differs or failed: $(cat "$TMP/err")"
mpi 3 "$S/reference.tif" "$S"/image_*.tif >"$TMP/mpi3.csv" 2>"$TMP/err" \
    && cmp -s "$TMP/mpi3.csv" "$TMP/one.csv" && pass "mpirun -n 3 to standard output: byte-identical" \
    || fail "mpirun -n 3 differs or failed: $(cat "$TMP/err")"
run --mode accurate "$S/reference.tif" "$S"/image_*.tif >"$TMP/acc1.csv" || fail "accurate, single process"
mpi 2 --mode accurate -o "$TMP/acc2.csv" "$S/reference.tif" "$S"/image_*.tif 2>"$TMP/err" \
    && cmp -s "$TMP/acc2.csv" "$TMP/acc1.csv" && pass "accurate mode, mpirun -n 2: byte-identical" \
    || fail "accurate mode under mpirun -n 2 differs or failed: $(cat "$TMP/err")"
# Shards under MPI, merged: still the same rows.
mpi 2 --shard 1/2 -o "$TMP/h1.csv" "$S/reference.tif" "$S"/image_*.tif 2>/dev/null &&
    mpi 2 --shard 2/2 -o "$TMP/h2.csv" "$S/reference.tif" "$S"/image_*.tif 2>/dev/null &&
    "$CLXCORR" merge -o "$TMP/h.csv" "$TMP/h1.csv" "$TMP/h2.csv" && cmp -s "$TMP/h.csv" "$TMP/one.csv" \
    && pass "two shards, each under mpirun -n 2, merged: identical" || fail "shards under MPI"

# An image of another size, found only when a rank loads it: image 7 of 9
# (rank 1's, in chunks of 5) and image 3 (rank 0's).
"$IMGTOOL" resize "$TMP/small.tif" "$S/image_0007.tif" 150 128 || exit 99
for bad in 7 3; do
    set --
    for i in 1 2 3 4 5 6 7 8 9; do
        if [ "$i" -eq "$bad" ]; then set -- "$@" "$TMP/small.tif"; else set -- "$@" "$S/image_000$i.tif"; fi
    done
    rank=$([ "$bad" -gt 5 ] && echo 1 || echo 0)
    rm -f "$TMP/f.csv" "$TMP/f.csv.part"
    mpi 2 -o "$TMP/f.csv" "$S/reference.tif" "$@" 2>"$TMP/err"
    status=$?
    head -n $((1 + (bad - 1) * 6)) "$TMP/one.csv" >"$TMP/prefix.csv"
    if [ "$status" -eq 0 ]; then
        fail "bad image $bad: exit status 0"
    elif ! grep -q "error: rank $rank on .*: image $bad of 9 (.*small.tif): .*150x128" "$TMP/err"; then
        fail "bad image $bad: no error naming rank $rank and the image: $(grep -v '^[-[]' "$TMP/err" | head -3)"
    elif [ -e "$TMP/f.csv" ] || ! cmp -s "$TMP/f.csv.part" "$TMP/prefix.csv"; then
        fail "bad image $bad: f.csv.part should hold exactly the rows of the $((bad - 1)) images before it"
    else
        pass "bad image $bad of 9: exit $status, rows of images 1-$((bad - 1)) in f.csv.part, $(grep 'error:' "$TMP/err")"
    fi
done

# Rank 1's device (the second of the list) does not exist.
dev=$("$CLXCORR" devices | sed -n 's/^ *\([0-9][0-9]*:[0-9][0-9]*\) .*/\1/p' | head -1)
rm -f "$TMP/g.csv" "$TMP/g.csv.part"
mpi 2 --device "$dev,nosuchdevice" -o "$TMP/g.csv" "$S/reference.tif" "$S"/image_*.tif 2>"$TMP/err"
status=$?
if [ "$status" -eq 0 ]; then
    fail "rank 1 without a device: exit status 0"
elif [ "$(grep -c 'error:' "$TMP/err")" -ne 1 ] || ! grep -q "error: rank 1 on .*nosuchdevice" "$TMP/err"; then
    fail "rank 1 without a device: expected one error naming rank 1: $(cat "$TMP/err")"
elif [ -e "$TMP/g.csv" ] || [ -e "$TMP/g.csv.part" ]; then
    fail "rank 1 without a device: an output file was left"
else
    pass "rank 1 without a device: $(grep 'error:' "$TMP/err"), no output file"
fi
finish
