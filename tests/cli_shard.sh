#!/bin/sh
# --shard K/N and clxcorr merge: shards merged in any order give the
# single run's output byte for byte; merge refuses a missing, repeated,
# unfinished, truncated or foreign shard with one error line and writes
# nothing; a shard may be empty; a bad K/N is a usage error.
. "$TESTS_SRCDIR/lib.sh"
need_device
make_small_set "$TMP/set" 7
S=$TMP/set
run() {
    "$CLXCORR" offsets --mode seed --method fft --regions "$S/regions.txt" "$@"
}
run "$S/reference.tif" "$S"/image_*.tif >"$TMP/one.csv" || fail "the whole run"
for k in 1 2 3; do
    run --shard "$k/3" -o "$TMP/s$k.csv" "$S/reference.tif" "$S"/image_*.tif || fail "shard $k/3"
done
head -1 "$TMP/s2.csv" | grep -q '^# clxcorr shard 2/3 first=2 images=2 total=7 windows=6 list=' \
    && pass "shard 2/3 says what it holds: $(head -1 "$TMP/s2.csv")" || fail "shard line: $(head -1 "$TMP/s2.csv")"
"$CLXCORR" merge -o "$TMP/merged.csv" "$TMP/s3.csv" "$TMP/s1.csv" "$TMP/s2.csv" \
    && cmp -s "$TMP/merged.csv" "$TMP/one.csv" && pass "3 shards merged (given 3, 1, 2): identical to one run" \
    || fail "merged shards differ from one run"
"$CLXCORR" merge "$TMP/s1.csv" "$TMP/s2.csv" "$TMP/s3.csv" >"$TMP/merged2.csv" \
    && cmp -s "$TMP/merged2.csv" "$TMP/one.csv" && pass "merged to standard output" || fail "merge to stdout"

# More shards than images: empty shards are valid and merge too.
for k in 1 2 3 4 5 6 7 8 9 10; do
    run --shard "$k/10" -o "$TMP/t$k.csv" "$S/reference.tif" "$S"/image_*.tif || fail "shard $k/10"
done
grep -q 'images=0' "$TMP/t1.csv" && [ "$(wc -l <"$TMP/t1.csv")" -eq 2 ] \
    && pass "shard 1/10 of 7 images: empty, with its two header lines" || fail "empty shard: $(cat "$TMP/t1.csv")"
"$CLXCORR" merge -o "$TMP/merged10.csv" "$TMP"/t*.csv && cmp -s "$TMP/merged10.csv" "$TMP/one.csv" \
    && pass "10 shards of 7 images merged: identical" || fail "10 shards merged differ"

# Shards whose header is not image,...: TSV (--shard writes CSV or TSV),
# --columns in another order, a pattern file's scan (scan_row,...): merged
# like any other (merge once took only a header starting 'image,').
run --format tsv "$S/reference.tif" "$S"/image_*.tif >"$TMP/one.tsv" || fail "tsv"
run --format tsv --shard 1/2 -o "$TMP/v1.tsv" "$S/reference.tif" "$S"/image_*.tif &&
    run --format tsv --shard 2/2 -o "$TMP/v2.tsv" "$S/reference.tif" "$S"/image_*.tif &&
    "$CLXCORR" merge "$TMP/v2.tsv" "$TMP/v1.tsv" 2>"$TMP/err" | cmp -s - "$TMP/one.tsv" \
    && pass "2 TSV shards merged: identical to one run" || fail "TSV shards: $(cat "$TMP/err")"
run --columns dy,dx,image "$S/reference.tif" "$S"/image_*.tif >"$TMP/one.cols" || fail "--columns"
run --columns dy,dx,image --shard 1/2 -o "$TMP/c1.csv" "$S/reference.tif" "$S"/image_*.tif &&
    run --columns dy,dx,image --shard 2/2 -o "$TMP/c2.csv" "$S/reference.tif" "$S"/image_*.tif &&
    "$CLXCORR" merge "$TMP/c1.csv" "$TMP/c2.csv" 2>"$TMP/err" | cmp -s - "$TMP/one.cols" \
    && pass "2 shards of --columns dy,dx,image merged: identical to one run" || fail "--columns shards: $(cat "$TMP/err")"
if "$CLXCORR" --version | grep -q 'features:.* hdf5'; then
    P=$TESTS_SRCDIR/data/ebsd/patterns.h5
    scan() {
        "$CLXCORR" offsets --mode seed --method fft --grid 2x2 --window 24x24 --margin 8 "$@" "$P#0,0" "$P"
    }
    scan >"$TMP/scan.csv" && scan --shard 1/2 -o "$TMP/p1.csv" && scan --shard 2/2 -o "$TMP/p2.csv" \
        && "$CLXCORR" merge "$TMP/p1.csv" "$TMP/p2.csv" 2>"$TMP/err" | cmp -s - "$TMP/scan.csv" \
        && pass "2 shards of a pattern file's scan merged: identical to one run ($(head -1 "$TMP/scan.csv" | cut -c1-24)...)" \
        || fail "a scan's shards: $(cat "$TMP/err")"
else
    skip_check "shards of a pattern file's scan" "this clxcorr was built without HDF5"
fi
refused() {
    name=$1 pattern=$2
    shift 2
    rm -f "$TMP/bad.csv" "$TMP/bad.csv.part"
    "$CLXCORR" merge -o "$TMP/bad.csv" "$@" 2>"$TMP/err"
    status=$?
    if [ "$status" -ne 1 ]; then
        fail "$name: exit status $status, expected 1"
    elif [ "$(grep -c 'error:' "$TMP/err")" -ne 1 ] || ! grep -Eq -- "$pattern" "$TMP/err"; then
        fail "$name: expected one error line matching '$pattern': $(cat "$TMP/err")"
    elif [ -e "$TMP/bad.csv" ] || [ -e "$TMP/bad.csv.part" ]; then
        fail "$name: merge wrote output"
    else
        pass "$name refused: $(cat "$TMP/err")"
    fi
}
refused "a missing shard" "1 of 3 shards missing: 2" "$TMP/s1.csv" "$TMP/s3.csv"
refused "a repeated shard" "shard 1/3 given twice" "$TMP/s1.csv" "$TMP/s2.csv" "$TMP/s1.csv" "$TMP/s3.csv"
head -c 300 "$TMP/s3.csv" >"$TMP/cut.csv"
refused "a truncated shard" "cut.csv: shard 3/3 has .* rows .*should have 18" "$TMP/s1.csv" "$TMP/s2.csv" "$TMP/cut.csv"
cp "$TMP/s3.csv" "$TMP/s3.csv.part"
refused "an unfinished shard" "s3.csv.part: an unfinished shard" "$TMP/s1.csv" "$TMP/s2.csv" "$TMP/s3.csv.part"
run --shard 2/3 -o "$TMP/other.csv" "$S/reference.tif" "$S"/image_000[1-6].tif || fail "shard of another run"
refused "a shard of another run" "come from different runs \(the number of images differs\)" \
    "$TMP/s1.csv" "$TMP/other.csv" "$TMP/s3.csv"
run --columns dx,dy,image --shard 2/2 -o "$TMP/x2.csv" "$S/reference.tif" "$S"/image_*.tif || fail "--columns dx,dy,image"
refused "shards of other columns" "come from different runs \(the columns differs\)" "$TMP/c1.csv" "$TMP/x2.csv"
refused "a file that is no shard" "one.csv: not the output of .clxcorr offsets --shard" "$TMP/one.csv"
refused "a shard that does not exist" "nothere.csv: No such file" "$TMP/s1.csv" "$TMP/nothere.csv"
# A shard whose run was killed (after its first image) is named when it is
# missing from the set:
# merge finds its FILE.part beside the others.
mkdir "$TMP/k" && cp "$TMP/s1.csv" "$TMP/s3.csv" "$TMP/k/"
CLXCORR_FAULT_KILL=8 run --shard 2/3 -o "$TMP/k/s2.csv" "$S/reference.tif" "$S"/image_*.tif 2>/dev/null
refused "a shard killed before it finished" "shard 2/3 is unfinished: .*k/s2.csv.part holds [0-9]+ of its [0-9]+ images" \
    "$TMP/k/s1.csv" "$TMP/k/s3.csv"
run --shard 2/3 --resume -o "$TMP/k/s2.csv" "$S/reference.tif" "$S"/image_*.tif 2>/dev/null \
    && "$CLXCORR" merge -o "$TMP/k/all.csv" "$TMP"/k/s[123].csv && cmp -s "$TMP/k/all.csv" "$TMP/one.csv" \
    && pass "the killed shard resumed, then merged: identical to one run" || fail "the resumed shard's merge"

expect_failure "--shard 0/3" 2 "--shard 0/3: K counts from 1" run --shard 0/3 "$S/reference.tif" "$S/image_0001.tif"
expect_failure "--shard 4/3" 2 "--shard 4/3: K counts from 1" run --shard 4/3 "$S/reference.tif" "$S/image_0001.tif"
expect_failure "--shard 2" 2 "--shard: expected K/N" run --shard 2 "$S/reference.tif" "$S/image_0001.tif"
finish
