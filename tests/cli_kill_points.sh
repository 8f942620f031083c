#!/bin/sh
# Kill-point stress: one job, stopped by SIGKILL at 20 points spread over
# its run, each then resumed with --resume and compared byte for byte with
# the uninterrupted run. The points are seeded (KILL_SEED, default 22; a
# failure names its seed and point, so it reproduces):
#   3 timed kills in start-up (before or while the output is opened),
#   the steps named open, truncate (of a resume), rename and renamed (just
#   before and after FILE.part becomes FILE), and
#   13 numbered steps of writing (CLXCORR_FAULT_KILL=N), three of whose
#   resumes are killed again before a last resume.
# A shard (--shard 2/3) and, with mpirun, two ranks are killed and resumed
# the same way.
. "$TESTS_SRCDIR/lib.sh"
need_device
SEED=${KILL_SEED:-22}
make_small_set "$TMP/set" 9
S=$TMP/set
for i in $(seq 0 239); do echo "$S/image_000$((i % 9 + 1)).tif"; done >"$TMP/list.txt"
IMAGES=240
run() {
    "$CLXCORR" offsets --mode seed --method fft --batch 4 --regions "$S/regions.txt" --list "$TMP/list.txt" "$@" \
        "$S/reference.tif"
}
# Checkpoints at every write, so that every kill point has synced rows
# before it as well as rows after it.
CLXCORR_CHECKPOINT_SECONDS=0
export CLXCORR_CHECKPOINT_SECONDS
run -o "$TMP/full.csv" 2>/dev/null || { fail "the uninterrupted run"; finish; }

# Resumes $1 (the output) until it completes (at most 4 tries), then
# compares; $2 names the case.
resume_check() {
    tries=0
    while [ $tries -lt 4 ]; do
        run --resume -o "$1" >/dev/null 2>"$TMP/err" && break
        tries=$((tries + 1))
    done
    if [ $tries -ge 4 ]; then
        fail "seed $SEED, $2: the resume failed: $(cat "$TMP/err")"
    elif ! cmp -s "$1" "$TMP/full.csv"; then
        fail "seed $SEED, $2: the resumed output differs ($(wc -l <"$1") lines against $(wc -l <"$TMP/full.csv"))"
    elif ls "$1".* >/dev/null 2>&1; then
        fail "seed $SEED, $2: left behind: $(ls "$1".*)"
    else
        pass "$2: resumed, byte-identical ($(grep -o '[0-9]* of [0-9]* images already in\|is complete\|starting from the first image' "$TMP/err"))"
    fi
}

# The seeded points: delays for the timed kills, then numbered steps.
points=$(awk -v seed="$SEED" -v images="$IMAGES" 'BEGIN {
    srand(seed)
    for (k = 0; k < 3; k++) printf "t%.2f ", 0.05 + rand() * 0.6
    for (k = 0; k < 13; k++) printf "n%d ", 1 + int(rand() * (2 * images + 10))
    for (k = 0; k < 3; k++) printf "r%d ", 1 + int(rand() * 20)
}')
case=0
for p in $points; do
    case=$((case + 1))
    out=$TMP/k$case.csv
    case $p in
    t*)
        # clxcorr itself, not a subshell around it: killing a wrapper
        # leaves the run going (and its lock then refuses the resume).
        "$CLXCORR" offsets --mode seed --method fft --batch 4 --regions "$S/regions.txt" --list "$TMP/list.txt" \
            -o "$out" "$S/reference.tif" 2>/dev/null &
        pid=$!
        sleep "${p#t}"
        kill -KILL $pid 2>/dev/null
        wait $pid 2>/dev/null
        resume_check "$out" "a kill after ${p#t} s (start-up)"
        ;;
    n*)
        CLXCORR_FAULT_KILL=${p#n} run -o "$out" 2>/dev/null
        resume_check "$out" "a kill at step ${p#n}"
        ;;
    r*)
        # A resume killed in turn: the first run at a seeded step, its
        # resume a few steps into its own writing.
        CLXCORR_FAULT_KILL=$((${p#r} * 20)) run -o "$out" 2>/dev/null
        CLXCORR_FAULT_KILL=${p#r} run --resume -o "$out" 2>/dev/null
        resume_check "$out" "a kill at step $((${p#r} * 20)), its resume killed at step ${p#r}"
        ;;
    esac
done
for named in open rename@k.csv renamed@k.csv; do
    out=$TMP/k.csv
    rm -f "$out"*
    CLXCORR_FAULT_KILL=$named run -o "$out" 2>/dev/null
    resume_check "$out" "a kill at '$named'"
done
# The resume itself killed while cutting FILE.part.
CLXCORR_FAULT_KILL=300 run -o "$TMP/t.csv" 2>/dev/null
CLXCORR_FAULT_KILL=truncate run --resume -o "$TMP/t.csv" 2>/dev/null
resume_check "$TMP/t.csv" "a resume killed while cutting its FILE.part"

# A shard keeps the guarantee: killed, resumed, its file the one an
# uninterrupted shard writes.
run --shard 2/3 -o "$TMP/s-full.csv" 2>/dev/null || fail "the uninterrupted shard"
CLXCORR_FAULT_KILL=40 run --shard 2/3 -o "$TMP/s.csv" 2>/dev/null
run --shard 2/3 --resume -o "$TMP/s.csv" 2>"$TMP/err" && cmp -s "$TMP/s.csv" "$TMP/s-full.csv" \
    && pass "shard 2/3 killed at step 40 and resumed: byte-identical" || fail "the shard's resume: $(cat "$TMP/err")"

# Two MPI ranks: rank 0 writes, so killing it stops the job; the resume
# under mpirun gives the same bytes.
if [ -n "${MPIRUN:-}" ] && "$CLXCORR" --version | grep -q mpi; then
    # No leak check under mpirun in a sanitizer build (as tests/cli_mpi.sh:
    # Open MPI's unloaded plugins leave allocations LeakSanitizer cannot
    # attribute); ASan and UBSan stay on.
    mpi() {
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
            "$MPIRUN" --allow-run-as-root --oversubscribe -n 2 "$@"
    }
    CLXCORR_FAULT_KILL=100 mpi "$CLXCORR" offsets --mode seed --method fft --batch 4 --regions "$S/regions.txt" \
        --list "$TMP/list.txt" -o "$TMP/m.csv" "$S/reference.tif" >/dev/null 2>&1
    mpi "$CLXCORR" offsets --mode seed --method fft --batch 4 --regions "$S/regions.txt" --list "$TMP/list.txt" \
        --resume -o "$TMP/m.csv" "$S/reference.tif" >/dev/null 2>"$TMP/err" && cmp -s "$TMP/m.csv" "$TMP/full.csv" \
        && pass "mpirun -n 2 killed at step 100 and resumed under mpirun: byte-identical" \
        || fail "the MPI resume: $(tail -3 "$TMP/err")"
else
    echo "# no mpirun or a build without MPI: the MPI case is skipped"
fi
finish
