#!/bin/sh
# --resume and --skip-bad. A run killed in the middle (SIGKILL: its last row
# may be cut) or cut short by hand, then resumed, gives the uninterrupted
# run's file byte for byte; resuming a finished file changes nothing; a file
# of another kind of run is refused and left as it was. --skip-bad turns
# unreadable images (missing, corrupt, another size) into warnings and rows
# flagged 64, the other rows as without them.
. "$TESTS_SRCDIR/lib.sh"
need_device
make_small_set "$TMP/set" 9
S=$TMP/set
for i in $(seq 0 2999); do echo "$S/image_000$((i % 9 + 1)).tif"; done >"$TMP/list.txt"
run() {
    "$CLXCORR" offsets --mode seed --method fft --batch 2 --regions "$S/regions.txt" "$@"
}
run --list "$TMP/list.txt" -o "$TMP/full.csv" "$S/reference.tif" || fail "the uninterrupted run"

# Killed (SIGKILL) once rows are on disk.
"$CLXCORR" offsets --mode seed --method fft --batch 2 --regions "$S/regions.txt" --list "$TMP/list.txt" \
    -o "$TMP/r.csv" "$S/reference.tif" 2>/dev/null &
pid=$!
waited=0
while [ "$(wc -l <"$TMP/r.csv.part" 2>/dev/null || echo 0)" -lt 100 ] && [ $waited -lt 600 ] && kill -0 $pid 2>/dev/null; do
    sleep 0.05
    waited=$((waited + 1))
done
kill -KILL $pid 2>/dev/null
wait $pid 2>/dev/null
if [ -e "$TMP/r.csv" ]; then
    pass "the run finished before it could be killed; resuming a finished file below"
else
    # Cut the last row in half as well, as a crash mid-write would.
    size=$(wc -c <"$TMP/r.csv.part")
    truncate -s $((size - 7)) "$TMP/r.csv.part"
fi
run --resume --list "$TMP/list.txt" -o "$TMP/r.csv" "$S/reference.tif" 2>"$TMP/err"
status=$?
if [ "$status" -ne 0 ]; then
    fail "resume after a kill: exit status $status: $(cat "$TMP/err")"
elif [ -e "$TMP/r.csv.part" ] || ! cmp -s "$TMP/r.csv" "$TMP/full.csv"; then
    fail "resume after a kill: r.csv differs from the uninterrupted run"
else
    pass "resume after a kill: byte-identical; $(cat "$TMP/err")"
fi

# A run stopped (SIGKILL) at its 1500th step of writing leaves c.csv.part
# and c.csv.resume, the run's fingerprint.
partial() {
    CLXCORR_FAULT_KILL=1500 run --list "$TMP/list.txt" -o "$TMP/$1.csv" "$S/reference.tif" 2>/dev/null
    [ -e "$TMP/$1.csv.part" ] && [ -e "$TMP/$1.csv.resume" ] || fail "no $1.csv.part and $1.csv.resume after a kill"
}

# Cut by hand in the middle of image 101's rows: images 1-100 are kept.
partial c
head -n 604 "$TMP/full.csv" >"$TMP/c.csv.part"
printf 'partial,row' >>"$TMP/c.csv.part"
run --resume --list "$TMP/list.txt" -o "$TMP/c.csv" "$S/reference.tif" 2>"$TMP/err" \
    && cmp -s "$TMP/c.csv" "$TMP/full.csv" && grep -q "100 of 3000 images already in" "$TMP/err" \
    && pass "a cut row: 100 whole images kept, the rest recomputed, identical" \
    || fail "a cut row: $(cat "$TMP/err")"

# A row of the wrong image in the middle: kept only up to it.
partial w
{ head -n 61 "$TMP/full.csv"; sed -n 2,7p "$TMP/full.csv"; sed -n '68,$p' "$TMP/full.csv"; } >"$TMP/w.csv.part"
run --resume --list "$TMP/list.txt" -o "$TMP/w.csv" "$S/reference.tif" 2>"$TMP/err" \
    && cmp -s "$TMP/w.csv" "$TMP/full.csv" && grep -q "10 of 3000 images already in" "$TMP/err" \
    && pass "rows of another image at image 11: 10 kept, identical" || fail "wrong rows: $(cat "$TMP/err")"

# The fingerprint in f.csv.resume: a resume with other options, another
# reference, other windows or another list is refused, f.csv.part untouched.
partial f
cp "$TMP/f.csv.part" "$TMP/f.before"
expect_failure "resume with another --fit-size, named" 1 \
    "f.csv.part was written by a run with other options \\(--fit-size 0 there, 7 here\\) than this one" \
    run --fit-size 7 --resume --list "$TMP/list.txt" -o "$TMP/f.csv" "$S/reference.tif"
expect_failure "resume with another --max-shift and --batch, both named" 1 \
    "other options \\(--max-shift 0 there, 5 here; --batch 2 there, 3 here\\)" \
    run --max-shift 5 --batch 3 --resume --list "$TMP/list.txt" -o "$TMP/f.csv" "$S/reference.tif"
cp "$S/reference.tif" "$TMP/ref-copy.tif"
"$IMGTOOL" resize "$TMP/ref-other.tif" "$S/image_0002.tif" 160 128 || exit 99
expect_failure "resume with another reference" 1 "other reference than this one" \
    run --resume --list "$TMP/list.txt" -o "$TMP/f.csv" "$TMP/ref-other.tif"
head -n 5 "$S/regions.txt" >"$TMP/fewer.txt"
expect_failure "resume with other windows" 1 "other windows than this one" \
    "$CLXCORR" offsets --mode seed --method fft --batch 2 --regions "$TMP/fewer.txt" --resume --list "$TMP/list.txt" \
    -o "$TMP/f.csv" "$S/reference.tif"
sed 's/image_0009/image_0008/' "$TMP/list.txt" >"$TMP/list2.txt"
expect_failure "resume with another image list" 1 "other image list than this one" \
    run --resume --list "$TMP/list2.txt" -o "$TMP/f.csv" "$S/reference.tif"
cmp -s "$TMP/f.csv.part" "$TMP/f.before" && pass "the refused partial output is untouched" \
    || fail "a refused resume changed f.csv.part"
mv "$TMP/f.csv.resume" "$TMP/f.resume.saved"
expect_failure "a partial output without its record" 1 "has no .*f.csv.resume" \
    run --resume --list "$TMP/list.txt" -o "$TMP/f.csv" "$S/reference.tif"
mv "$TMP/f.resume.saved" "$TMP/f.csv.resume"

# A second run writing the same output at once is refused (f.csv.part is
# locked), and the first one's file is whole.
run --list "$TMP/list.txt" -o "$TMP/l.csv" "$S/reference.tif" 2>/dev/null &
first=$!
waited=0
while [ ! -s "$TMP/l.csv.part" ] && [ $waited -lt 600 ]; do sleep 0.05; waited=$((waited + 1)); done
if kill -0 $first 2>/dev/null && [ -e "$TMP/l.csv.part" ]; then
    run --resume --list "$TMP/list.txt" -o "$TMP/l.csv" "$S/reference.tif" >/dev/null 2>"$TMP/err"
    status=$?
    wait $first
    if [ "$status" -ne 1 ] || ! grep -q "l.csv.part is being written by another process" "$TMP/err"; then
        fail "a second writer of l.csv: exit status $status: $(cat "$TMP/err")"
    elif ! cmp -s "$TMP/l.csv" "$TMP/full.csv"; then
        fail "the first writer's l.csv differs from the uninterrupted run"
    else
        pass "a second writer of the same output is refused: $(cat "$TMP/err")"
    fi
else
    wait $first
    pass "the run ended before a second writer could start (nothing to check)"
fi

# A finished file: nothing to do, nothing changed.
cp "$TMP/full.csv" "$TMP/done.csv"
run --resume --list "$TMP/list.txt" -o "$TMP/done.csv" "$S/reference.tif" 2>"$TMP/err" \
    && cmp -s "$TMP/done.csv" "$TMP/full.csv" && grep -q "done.csv is complete (3000 images): nothing to do" "$TMP/err" \
    && pass "a finished file: unchanged" || fail "a finished file: $(cat "$TMP/err")"

# No earlier output: a whole run.
rm -f "$TMP/new.csv"
run --resume --list "$TMP/list.txt" -o "$TMP/new.csv" "$S/reference.tif" 2>"$TMP/err" \
    && cmp -s "$TMP/new.csv" "$TMP/full.csv" && pass "nothing to resume: a whole run" \
    || fail "nothing to resume: $(cat "$TMP/err")"

# Another kind of run's file: refused, untouched.
cp "$TMP/full.csv" "$TMP/other.csv"
expect_failure "an accurate-mode resume of a seed-mode file" 1 "other.csv is not this run's complete output \\(its first lines differ" \
    "$CLXCORR" offsets --mode accurate --resume --regions "$S/regions.txt" --list "$TMP/list.txt" \
    -o "$TMP/other.csv" "$S/reference.tif"
cmp -s "$TMP/other.csv" "$TMP/full.csv" && [ ! -e "$TMP/other.csv.part" ] && pass "the refused file is untouched" \
    || fail "the refused file was changed"
expect_failure "--resume without -o" 2 "--resume continues the output FILE" \
    run --resume "$S/reference.tif" "$S/image_0001.tif"

# --skip-bad: a missing, a corrupt and a smaller image among good ones.
head -c 500 "$S/image_0004.tif" >"$TMP/corrupt.tif"
"$IMGTOOL" resize "$TMP/small.tif" "$S/image_0006.tif" 150 128 || exit 99
run "$S/reference.tif" "$S/image_0001.tif" "$S/image_0002.tif" "$S/image_0003.tif" >"$TMP/good.csv" || fail "good"
run --skip-bad "$S/reference.tif" "$S/image_0001.tif" "$TMP/missing.tif" "$TMP/corrupt.tif" "$S/image_0002.tif" \
    "$TMP/small.tif" "$S/image_0003.tif" >"$TMP/skip.csv" 2>"$TMP/err"
status=$?
flagged=$(grep -c ',nan,nan,nan,64$' "$TMP/skip.csv")
if [ "$status" -ne 0 ]; then
    fail "--skip-bad: exit status $status: $(cat "$TMP/err")"
elif [ "$(grep -c 'warning: skipped' "$TMP/err")" -ne 3 ] || ! grep -q "3 of 6 images could not be read" "$TMP/err"; then
    fail "--skip-bad: expected 3 warnings naming the images and a summary: $(cat "$TMP/err")"
elif [ "$flagged" -ne 18 ]; then
    fail "--skip-bad: $flagged rows flagged 64 with nan offsets, expected 18"
elif ! grep -v ',64$' "$TMP/skip.csv" | cmp -s - "$TMP/good.csv"; then
    fail "--skip-bad: the good images' rows differ from a run without the bad ones"
else
    pass "--skip-bad: 3 images skipped with warnings, 18 flagged rows, the others unchanged"
fi
expect_failure "without --skip-bad, a missing image stops the run" 1 "missing.tif" \
    run "$S/reference.tif" "$TMP/missing.tif" "$S/image_0001.tif"
finish
