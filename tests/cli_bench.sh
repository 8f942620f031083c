#!/bin/sh
# clxcorr bench: one workload on the test device gives a table row with
# rates from memory and from files, stage times from profiling for every
# stage of the seed pipeline, and JSON, CSV and SVG files that hold the
# same figures; bad options are usage errors.
. "$TESTS_SRCDIR/lib.sh"
need_device
"$CLXCORR" bench --workload mid-512 --mode seed -n 2 --files 2 --seconds 0.1 --dir "$TMP" -o "$TMP/b" \
    >"$TMP/table" 2>"$TMP/err"
status=$?
if [ "$status" -ne 0 ]; then
    fail "bench: exit status $status: $(tail -3 "$TMP/err")"
else
    pass "bench runs"
fi
row=$(grep "mid-512" "$TMP/table" | head -1)
# device(s) workload mode method fft batch memory files share bus...: the rates are numbers > 0.
echo "$row" | awk '{ for (i = 1; i <= NF; i++) if ($i == "mid-512") { m = $(i + 5); f = $(i + 6) }
                     exit !(m + 0 > 0 && f + 0 > 0) }' \
    && pass "table: rates from memory and from files" || fail "table row: $row"
# The FFT path's middle is three stages, or one where the backend fuses the
# multiply into its transforms (fft=cpu's correlate: "fft+multiply").
if grep "ms per batch:" "$TMP/table" | grep -q "fft+multiply [0-9]"; then
    stages="upload,prepare,fft+multiply,peaks,download"
else
    stages="upload,prepare,fft forward,multiply,fft inverse,peaks,download"
fi
missing=$(echo "$stages" | tr ',' '\n' | while read -r stage; do
    grep "ms per batch:" "$TMP/table" | grep -q "$stage [0-9]" || echo "$stage"
done)
[ -z "$missing" ] && pass "stage times for every seed stage" \
    || fail "no stage time for '$(echo $missing)': $(cat "$TMP/table")"
ls "$TMP"/clxcorr-bench-* >/dev/null 2>&1 && fail "bench left its files behind" || pass "bench removes its files"

memory=$(echo "$row" | awk '{ for (i = 1; i <= NF; i++) if ($i == "mid-512") print $(i + 5) }')
[ "$(head -1 "$TMP/b.csv" | cut -d, -f1-4)" = "device,vendor,driver,workload" ] && [ "$(wc -l <"$TMP/b.csv")" -eq 2 ] \
    && pass "CSV: a header and one row" || fail "CSV: $(cat "$TMP/b.csv")"
grep -q "mid-512" "$TMP/b.csv" && grep -q "\"memory_images_per_s\": $memory" "$TMP/b.json" \
    && pass "JSON holds the table's rate" || fail "JSON: no rate $memory: $(grep memory_images_per_s "$TMP/b.json")"
head -c 4 "$TMP/b.svg" | grep -q "<svg" && tail -1 "$TMP/b.svg" | grep -q "</svg>" && grep -q "mid-512" "$TMP/b.svg" \
    && pass "SVG chart" || fail "SVG: $(head -c 300 "$TMP/b.svg")"

expect_failure "unknown workload" 2 "unknown workload 'nope'" "$CLXCORR" bench --workload mid-512,nope
expect_failure "bench takes no images" 2 "takes no arguments" "$CLXCORR" bench image.tif
expect_failure "unknown mode" 2 "unknown mode" "$CLXCORR" bench --mode fast
finish
