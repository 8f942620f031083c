#!/bin/sh
# Output: -o writes FILE.part and renames it only when the run completes;
# a failed run leaves FILE absent and FILE.part with complete rows only;
# image names that need CSV quoting are quoted.
. "$TESTS_SRCDIR/lib.sh"
need_device
make_small_set "$TMP/set" 3
S=$TMP/set
run() {
    "$CLXCORR" offsets --regions "$S/regions.txt" "$@"
}

run "$S/reference.tif" "$S"/image_*.tif >"$TMP/stdout.csv" || fail "run to stdout"
run -o "$TMP/out.csv" "$S/reference.tif" "$S"/image_*.tif || fail "run to a file"
[ -f "$TMP/out.csv" ] && [ ! -e "$TMP/out.csv.part" ] && cmp -s "$TMP/out.csv" "$TMP/stdout.csv" \
    && pass "-o FILE: complete file, same as standard output, no .part left" || fail "-o FILE"
head -1 "$TMP/out.csv" | grep -qx "image,region,x,y,dx,dy,peak,flags,zncc,peak_ratio,iterations,znssd,sigma_dx,sigma_dy,dudx,dudy,dvdx,dvdy,exx,eyy,exy" \
    && pass "header (accurate mode)" || fail "header: $(head -1 "$TMP/out.csv")"
run --mode seed "$S/reference.tif" "$S/image_0001.tif" | head -1 | grep -qx "image,region,x,y,dx,dy,peak,flags" \
    && pass "header (seed mode)" || fail "seed mode header"
[ "$(wc -l <"$TMP/out.csv")" -eq 19 ] && pass "3 images x 6 windows" || fail "$(wc -l <"$TMP/out.csv") lines"

# A failure in the middle of the list (the third image is missing).
expect_failure "missing image mid-run, -o" 1 "missing.tif: No such file or directory" \
    run -b 1 -o "$TMP/partial.csv" "$S/reference.tif" "$S/image_0001.tif" "$S/image_0002.tif" "$S/missing.tif" "$S/image_0003.tif"
[ ! -e "$TMP/partial.csv" ] && pass "no FILE after a failed run" || fail "FILE exists after a failed run"
grep -q "rows are in $TMP/partial.csv.part" "$TMP/err" || fail "the error does not point to the .part file"
head -13 "$TMP/stdout.csv" >"$TMP/want.part"
cmp -s "$TMP/partial.csv.part" "$TMP/want.part" \
    && pass ".part holds exactly the rows of the images before the failure" \
    || fail ".part: $(wc -l <"$TMP/partial.csv.part") lines: $(tail -2 "$TMP/partial.csv.part")"

# The same to standard output: earlier rows complete, nothing after.
run -b 2 "$S/reference.tif" "$S/image_0001.tif" "$S/image_0002.tif" "$S/missing.tif" >"$TMP/mid.csv" 2>"$TMP/mid.err"
[ $? -eq 1 ] && cmp -s "$TMP/mid.csv" "$TMP/want.part" \
    && pass "standard output keeps the complete rows before a failure" || fail "stdout after a failure: $(cat "$TMP/mid.err")"

expect_failure "output directory missing" 1 "cannot write .*no-such-dir/out.csv: the directory .*no-such-dir does not exist" \
    run -o "$TMP/no-such-dir/out.csv" "$S/reference.tif" "$S/image_0001.tif"

cp "$S/image_0001.tif" "$TMP/a,\"b\".tif"
run "$S/reference.tif" "$TMP/a,\"b\".tif" >"$TMP/quoted.csv" || fail "run with a quoted name"
sed -n 2p "$TMP/quoted.csv" | grep -q "^\"$TMP/a,\"\"b\"\".tif\",0," && pass "CSV quoting of image names" \
    || fail "quoting: $(sed -n 2p "$TMP/quoted.csv")"
finish
