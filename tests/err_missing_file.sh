#!/bin/sh
# Error path: a missing reference, image, windows file or list file.
. "$TESTS_SRCDIR/lib.sh"
need_device
make_small_set "$TMP/set" 1
S=$TMP/set
expect_failure "missing reference" 1 "reference: $TMP/nope.tif: No such file or directory" \
    "$CLXCORR" offsets --regions "$S/regions.txt" "$TMP/nope.tif" "$S/image_0001.tif"
expect_failure "missing image" 1 "$TMP/nope.tif: No such file or directory" \
    "$CLXCORR" offsets --regions "$S/regions.txt" "$S/reference.tif" "$TMP/nope.tif"
expect_failure "missing windows file" 1 "$TMP/nope.txt: No such file or directory" \
    "$CLXCORR" offsets --regions "$TMP/nope.txt" "$S/reference.tif" "$S/image_0001.tif"
expect_failure "missing list file" 1 "$TMP/nope.lst: No such file or directory" \
    "$CLXCORR" offsets --regions "$S/regions.txt" --list "$TMP/nope.lst" "$S/reference.tif"
# A long list is opened by several threads before the run: the error still
# names the first missing entry in list order, whatever thread met it first.
i=0
while [ $i -lt 1200 ]; do
    case $i in
    700) echo "$TMP/first-missing.tif" ;;
    1100) echo "$TMP/second-missing.tif" ;;
    *) echo "$S/image_0001.tif" ;;
    esac
    i=$((i + 1))
done >"$TMP/long.lst"
"$CLXCORR" offsets --mode seed --regions "$S/regions.txt" --list "$TMP/long.lst" "$S/reference.tif" \
    >"$TMP/long.csv" 2>"$TMP/long.err"
rc=$?
"$CLXCORR" offsets --mode seed --regions "$S/regions.txt" "$S/reference.tif" "$S/image_0001.tif" >"$TMP/one.csv"
per_image=$(($(wc -l <"$TMP/one.csv") - 1))
rows=$(($(wc -l <"$TMP/long.csv") - 1))
[ $rc -eq 1 ] && grep -q "error: $TMP/first-missing.tif: No such file or directory" "$TMP/long.err" &&
    [ "$rows" -eq $((700 * per_image)) ] &&
    pass "entry 701 of 1200 missing: exit 1, named, the 700 images before it written ($rows rows)" ||
    fail "entry 701 of 1200 missing: exit $rc, $rows rows (expected $((700 * per_image))), $(cat "$TMP/long.err")"
finish
