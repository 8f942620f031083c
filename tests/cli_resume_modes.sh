#!/bin/sh
# Kill, resume and shards in the modes tests/cli_kill_points.sh and
# cli_resume.sh leave out (they run seed mode with --method fft): the
# default (accurate mode, --method auto) and seed mode with --method auto.
# In each: a run SIGKILLed at three steps of its writing (CLXCORR_FAULT_KILL)
# and resumed keeps exactly the whole images FILE.part held and gives the
# uninterrupted run's bytes; three shards merged, one of them killed and
# resumed, give them too; and with mpirun, two ranks killed and resumed
# under mpirun. Batches of 4 over 32 images: a resume starts inside a
# batch and ends on a partial one, where the uninterrupted run has none.
. "$TESTS_SRCDIR/lib.sh"
need_device
make_small_set "$TMP/set" 9
S=$TMP/set
for i in $(seq 0 31); do echo "$S/image_000$((i % 9 + 1)).tif"; done >"$TMP/list.txt"
CLXCORR_CHECKPOINT_SECONDS=0
export CLXCORR_CHECKPOINT_SECONDS
if [ -n "${MPIRUN:-}" ] && "$CLXCORR" --version | grep -q ' mpi '; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
    # No leak check under mpirun (tests/cli_mpi.sh says why).
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
    export ASAN_OPTIONS
    have_mpi=1
else
    have_mpi=0
fi

# modes NAME OPTIONS...: every check above for `clxcorr offsets OPTIONS`.
modes() {
    name=$1
    shift
    opts="$*"
    run() {
        # shellcheck disable=SC2086
        "$CLXCORR" offsets $opts --batch 4 --regions "$S/regions.txt" --list "$TMP/list.txt" "$@" "$S/reference.tif"
    }
    run -o "$TMP/$name.csv" 2>/dev/null || { fail "$name: the uninterrupted run"; return; }
    rows=$(($(wc -l <"$TMP/$name.csv") - 1))
    [ "$rows" -eq 192 ] || fail "$name: $rows rows, expected 192"
    # Steps: 5 is within the first batch's rows, 40 and 130 further on.
    for step in 5 40 130; do
        out=$TMP/$name.k$step.csv
        CLXCORR_FAULT_KILL=$step run -o "$out" 2>/dev/null
        if [ -e "$out" ] || [ ! -e "$out.part" ]; then
            fail "$name, killed at step $step: expected $out.part only"
            continue
        fi
        # The whole images in FILE.part: complete lines after the header, 6 a image.
        kept=$(awk 'END { print int((NR - 1) / 6) }' "$out.part")
        [ "$(tail -c 1 "$out.part" | od -An -c | tr -d ' ')" = '\n' ] || kept=$(awk 'END { print int((NR - 2) / 6) }' "$out.part")
        [ "$kept" -ge 0 ] || kept=0
        run --resume -o "$out" 2>"$TMP/err"
        status=$?
        if [ "$status" -ne 0 ]; then
            fail "$name, killed at step $step, resumed: exit $status: $(cat "$TMP/err")"
        elif ! cmp -s "$out" "$TMP/$name.csv" || ls "$out".* >/dev/null 2>&1; then
            fail "$name, killed at step $step, resumed: the output differs from the uninterrupted run's"
        elif [ "$kept" -gt 0 ] && ! grep -q "$kept of 32 images already in" "$TMP/err"; then
            fail "$name, killed at step $step: FILE.part held $kept whole images, the resume kept: $(cat "$TMP/err")"
        else
            pass "$name, killed at step $step, resumed: byte-identical, $kept images kept"
        fi
    done
    for k in 1 2 3; do
        run --shard "$k/3" -o "$TMP/$name.s$k.csv" 2>/dev/null || fail "$name: --shard $k/3"
    done
    "$CLXCORR" merge "$TMP/$name.s3.csv" "$TMP/$name.s1.csv" "$TMP/$name.s2.csv" 2>"$TMP/err" | cmp -s - "$TMP/$name.csv" \
        && pass "$name: 3 shards merged, byte-identical" || fail "$name: 3 shards merged differ: $(cat "$TMP/err")"
    rm -f "$TMP/$name.s2.csv"
    CLXCORR_FAULT_KILL=20 run --shard 2/3 -o "$TMP/$name.s2.csv" 2>/dev/null
    run --shard 2/3 --resume -o "$TMP/$name.s2.csv" 2>/dev/null \
        && "$CLXCORR" merge "$TMP/$name.s1.csv" "$TMP/$name.s2.csv" "$TMP/$name.s3.csv" 2>"$TMP/err" \
        | cmp -s - "$TMP/$name.csv" && pass "$name: shard 2/3 killed at step 20, resumed, merged: byte-identical" \
        || fail "$name: the resumed shard's merge: $(cat "$TMP/err")"
    if [ "$have_mpi" -eq 1 ]; then
        # shellcheck disable=SC2086
        CLXCORR_FAULT_KILL=60 "$MPIRUN" -n 2 "$CLXCORR" offsets $opts --batch 4 --regions "$S/regions.txt" \
            --list "$TMP/list.txt" -o "$TMP/$name.m.csv" "$S/reference.tif" >/dev/null 2>&1
        # shellcheck disable=SC2086
        [ -e "$TMP/$name.m.csv.part" ] && "$MPIRUN" -n 2 "$CLXCORR" offsets $opts --batch 4 --regions "$S/regions.txt" \
            --list "$TMP/list.txt" --resume -o "$TMP/$name.m.csv" "$S/reference.tif" >/dev/null 2>"$TMP/err" \
            && cmp -s "$TMP/$name.m.csv" "$TMP/$name.csv" \
            && pass "$name: mpirun -n 2 killed at step 60, resumed under mpirun: byte-identical" \
            || fail "$name: the MPI resume: $(tail -3 "$TMP/err")"
    else
        skip_check "$name: mpirun -n 2 killed and resumed" "no mpirun found by configure, or a build without MPI"
    fi
}

modes "accurate, --method auto (the defaults)"
modes "seed, --method auto" --mode seed --method auto
finish
