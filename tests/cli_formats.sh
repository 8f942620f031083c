#!/bin/sh
# offsets --format, --columns and --quiver: TSV and JSON lines carry the
# CSV's values; chosen columns are the CSV's columns in the order asked;
# resume works in every format; bad names are usage errors; --quiver draws
# a PNG of the documented size.
. "$TESTS_SRCDIR/lib.sh"
need_device
make_small_set "$TMP/set" 4
S=$TMP/set
run() {
    "$CLXCORR" offsets --mode seed --method fft --regions "$S/regions.txt" "$@"
}
run "$S/reference.tif" "$S"/image_*.tif >"$TMP/a.csv" || fail "csv"
run --format csv "$S/reference.tif" "$S"/image_*.tif | cmp -s - "$TMP/a.csv" \
    && pass "--format csv is the default" || fail "--format csv differs from the default"
run --format tsv "$S/reference.tif" "$S"/image_*.tif >"$TMP/a.tsv" || fail "tsv"
tr ',' '\t' <"$TMP/a.csv" | cmp -s - "$TMP/a.tsv" && pass "tsv: the csv with tabs" || fail "tsv differs from csv"
run --format jsonl "$S/reference.tif" "$S"/image_*.tif >"$TMP/a.jsonl" || fail "jsonl"
# JSON lines back to CSV: the values, in order, without the keys.
sed -e 's/^{//' -e 's/}$//' -e 's/"[a-z_]*"://g' -e 's/"//g' "$TMP/a.jsonl" >"$TMP/back.csv"
tail -n +2 "$TMP/a.csv" | cmp -s - "$TMP/back.csv" && [ "$(wc -l <"$TMP/a.jsonl")" -eq 24 ] \
    && pass "jsonl: 24 objects with the csv's values, no header" || fail "jsonl values differ from csv"
head -1 "$TMP/a.jsonl" | grep -q '^{"image":"[^"]*image_0001.tif","region":0,"x":[0-9.]*,"y":[0-9.]*,"dx":' \
    && pass "jsonl keys: $(head -1 "$TMP/a.jsonl" | cut -c1-60)..." || fail "jsonl keys: $(head -1 "$TMP/a.jsonl")"
if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import json, sys; [json.loads(l) for l in open(sys.argv[1])]' "$TMP/a.jsonl" \
        && pass "jsonl: every line is JSON" || fail "jsonl: invalid JSON"
else
    skip_check "jsonl: every line through json.loads" "no python3"
fi
# A name that is not UTF-8 (byte 0xff, then a UTF-8 e-acute): its other
# bytes as \udcXX, Python's surrogateescape, so that os.fsencode() of what
# json.loads() reads names the file again, byte for byte; plot reads it
# back the same way.
odd=$(printf 'odd\377\303\251.tif')
cp "$S/image_0001.tif" "$TMP/$odd"
run --format jsonl "$S/reference.tif" "$TMP/$odd" >"$TMP/odd.jsonl" || fail "jsonl, a name not UTF-8"
if head -1 "$TMP/odd.jsonl" | grep -qF "odd\\udcff$(printf '\303\251').tif\","; then
    pass "jsonl: byte 0xff as \\udcff, the UTF-8 e-acute as it is"
else
    fail "jsonl, a name not UTF-8: $(head -1 "$TMP/odd.jsonl" | cut -c1-80 | od -c | head -3)"
fi
if command -v python3 >/dev/null 2>&1; then
    python3 - "$TMP/odd.jsonl" "$TMP/$odd" <<'EOF2' && pass "jsonl: json.loads and os.fsencode give the name's bytes back" \
        || fail "jsonl: the name does not come back byte for byte"
import json, os, sys
rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
want = os.fsencode(sys.argv[2])
assert len(rows) == 6 and all(os.fsencode(r["image"]) == want for r in rows), (rows[0]["image"], want)
assert os.path.exists(os.fsencode(rows[0]["image"]))
EOF2
else
    skip_check "jsonl: the name's round trip through json.loads and os.fsencode" "no python3"
fi
"$CLXCORR" plot --image 0 -o "$TMP/odd.png" "$TMP/odd.jsonl" "$S/reference.tif" 2>"$TMP/err" \
    && pass "plot reads the escaped name" || fail "plot, the escaped name: $(cat "$TMP/err")"

run --columns dy,image,dx "$S/reference.tif" "$S"/image_*.tif >"$TMP/c.csv" || fail "--columns"
awk -F, 'BEGIN { OFS = "," } { print $6, $1, $5 }' "$TMP/a.csv" | cmp -s - "$TMP/c.csv" \
    && pass "--columns dy,image,dx: those columns of the csv, in that order" || fail "--columns differs"

expect_failure "an unknown format" 2 "--format: unknown format 'xml'" run --format xml "$S/reference.tif" \
    "$S/image_0001.tif"
expect_failure "an unknown column" 2 "--columns: unknown column 'speed'" run --columns dx,speed "$S/reference.tif" \
    "$S/image_0001.tif"
expect_failure "an accurate-mode column in seed mode" 2 "zncc" run --columns dx,zncc "$S/reference.tif" \
    "$S/image_0001.tif"
expect_failure "--shard with JSON lines" 2 "--shard writes CSV or TSV" run --shard 1/2 --format jsonl \
    "$S/reference.tif" "$S/image_0001.tif"

# Resume in TSV with a few columns, and in JSON lines.
for i in $(seq 0 199); do echo "$S/image_000$((i % 4 + 1)).tif"; done >"$TMP/list.txt"
for fmt in "--format tsv --columns image,dx,dy" "--format jsonl"; do
    # shellcheck disable=SC2086
    run $fmt --list "$TMP/list.txt" -o "$TMP/full.out" "$S/reference.tif" || fail "$fmt"
    # A run killed early leaves cut.out.part and cut.out.resume (the run's
    # fingerprint); its rows are then cut by hand in the middle of one.
    rm -f "$TMP/cut.out"*
    # shellcheck disable=SC2086
    CLXCORR_FAULT_KILL=5 run $fmt --list "$TMP/list.txt" -o "$TMP/cut.out" "$S/reference.tif" 2>/dev/null
    head -c 2500 "$TMP/full.out" >"$TMP/cut.out.part"
    # shellcheck disable=SC2086
    run $fmt --resume --list "$TMP/list.txt" -o "$TMP/cut.out" "$S/reference.tif" 2>/dev/null \
        && cmp -s "$TMP/cut.out" "$TMP/full.out" && pass "$fmt: resumed, identical" || fail "$fmt: resume differs"
done

# --quiver: a PNG, its size as quiver.h documents (image part 640 wide for a
# 160 x 128 reference: 512 high; + 3 x 16 + 130 wide, + 2 x 16 + 30 + 48 high).
run --mode accurate --quiver "$TMP/q.png" -o "$TMP/q.csv" "$S/reference.tif" "$S"/image_*.tif || fail "--quiver"
size=$(od -An -tu1 -j16 -N8 "$TMP/q.png" 2>/dev/null | awk '{ print $3 * 256 + $4 "x" $7 * 256 + $8 }')
head -c 8 "$TMP/q.png" | od -An -c | grep -q 'P   N   G' && [ "$size" = "818x622" ] \
    && pass "--quiver: a PNG of 818x622" || fail "--quiver: not a PNG of 818x622 ($size)"
finish
