#!/bin/sh
# The stream (src/pipeline/stream.c): several lanes, loader threads and small
# batches give byte-identical rows, in input order, to one lane and one
# loader; a bad image in the middle (found when the list is expanded, or
# only when a loader decodes it) stops the run after the rows of every
# image before it, whichever lane had them, with one error line naming it.
. "$TESTS_SRCDIR/lib.sh"
need_device
make_small_set "$TMP/set" 9
S=$TMP/set
run() {
    "$CLXCORR" offsets --mode seed --regions "$S/regions.txt" "$@"
}
run --lanes 1 --threads 1 "$S/reference.tif" "$S"/image_*.tif >"$TMP/one.csv" || fail "one lane"
for shape in "--lanes 3 --threads 4 --batch 2" "--lanes 2 --threads 3 --batch 4" "--lanes 4 --threads 2 --batch 1"; do
    # shellcheck disable=SC2086
    run $shape "$S/reference.tif" "$S"/image_*.tif >"$TMP/many.csv" && cmp -s "$TMP/many.csv" "$TMP/one.csv" \
        && pass "$shape: rows identical to one lane" || fail "$shape: rows differ from one lane"
done
run --mode accurate --lanes 1 "$S/reference.tif" "$S"/image_*.tif >"$TMP/acc1.csv" || fail "accurate, one lane"
run --mode accurate --lanes 3 --batch 2 "$S/reference.tif" "$S"/image_*.tif >"$TMP/acc3.csv" \
    && cmp -s "$TMP/acc1.csv" "$TMP/acc3.csv" && pass "accurate mode: 3 lanes, batches of 2: identical rows" \
    || fail "accurate mode: 3 lanes differ from one"

# The lanes share their context's programs: each (kernel file, build options)
# is built or loaded once per run, whatever the lanes (-vv logs each one made).
for mode in seed accurate; do
    run --mode $mode --lanes 3 --batch 2 -vv "$S/reference.tif" "$S"/image_*.tif 2>"$TMP/build.$mode" >/dev/null
    made=$(grep -c 'clxcorr: build [a-z_]*\.cl: ' "$TMP/build.$mode")
    again=$(grep 'clxcorr: build [a-z_]*\.cl: ' "$TMP/build.$mode" | sort | uniq -d | sed 's/: -cl-std.*//')
    [ "$made" -gt 0 ] && [ -z "$again" ] && pass "$mode mode, 3 lanes: $made programs, each made once" \
        || fail "$mode mode, 3 lanes: programs made more than once: $again ($made made)"
done

# Image 6 of 9 is truncated: images 1-5 keep their rows (2 batches and a half).
head -c 3000 "$S/image_0006.tif" >"$TMP/bad.tif"
set -- "$S/image_0001.tif" "$S/image_0002.tif" "$S/image_0003.tif" "$S/image_0004.tif" "$S/image_0005.tif" \
    "$TMP/bad.tif" "$S/image_0007.tif" "$S/image_0008.tif" "$S/image_0009.tif"
run --lanes 3 --threads 4 --batch 2 -o "$TMP/part.csv" "$S/reference.tif" "$@" 2>"$TMP/err"
status=$?
rows=$(grep -vc '^image' "$TMP/part.csv.part" 2>/dev/null)
windows=$(grep -vc '^#' "$S/regions.txt")
head -n $((1 + 5 * windows)) "$TMP/one.csv" >"$TMP/first5.csv"
if [ "$status" -ne 1 ]; then
    fail "bad image: exit status $status, expected 1"
elif [ "$(grep -c 'error:' "$TMP/err")" -ne 1 ] || ! grep -q "bad.tif" "$TMP/err"; then
    fail "bad image: expected one error line naming bad.tif: $(cat "$TMP/err")"
elif [ -e "$TMP/part.csv" ] || ! cmp -s "$TMP/part.csv.part" "$TMP/first5.csv"; then
    fail "bad image: expected the 5 images before it in part.csv.part only ($rows rows)"
else
    pass "bad image 6 of 9 with 3 lanes: the rows of images 1-5 in part.csv.part, then $(grep error: "$TMP/err")"
fi

# Image 4 of 9 has another size, found only when a loader decodes it.
"$IMGTOOL" resize "$TMP/small.tif" "$S/image_0004.tif" 150 128 || exit 99
set -- "$S/image_0001.tif" "$S/image_0002.tif" "$S/image_0003.tif" "$TMP/small.tif" "$S/image_0005.tif" \
    "$S/image_0006.tif" "$S/image_0007.tif" "$S/image_0008.tif" "$S/image_0009.tif"
run --lanes 3 --threads 4 --batch 2 -o "$TMP/size.csv" "$S/reference.tif" "$@" 2>"$TMP/err"
status=$?
head -n $((1 + 3 * windows)) "$TMP/one.csv" >"$TMP/first3.csv"
if [ "$status" -ne 1 ] || [ "$(grep -c 'error:' "$TMP/err")" -ne 1 ] || ! grep -q "small.tif is 150x128" "$TMP/err"; then
    fail "image of another size: status $status, stderr $(cat "$TMP/err")"
elif [ -e "$TMP/size.csv" ] || ! cmp -s "$TMP/size.csv.part" "$TMP/first3.csv"; then
    fail "image of another size: expected the rows of images 1-3 only"
else
    pass "image 4 of 9 of another size, loaded by a loader thread: rows of images 1-3 kept, one error line"
fi
finish
