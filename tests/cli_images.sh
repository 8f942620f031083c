#!/bin/sh
# Image inputs: --list FILE and --list - (standard input), multi-page TIFF
# (each page one image, PATH#N names and selects a page), 8-bit TIFF and PNG
# giving identical offsets for identical pixels.
. "$TESTS_SRCDIR/lib.sh"
need_device
make_small_set "$TMP/set" 3
S=$TMP/set
run() {
    "$CLXCORR" offsets --regions "$S/regions.txt" "$@"
}
run "$S/reference.tif" "$S"/image_*.tif >"$TMP/args.csv" || fail "run with arguments"

printf '# a comment\n%s\n\n%s\n%s\n' "$S/image_0001.tif" "$S/image_0002.tif" "$S/image_0003.tif" >"$TMP/list.txt"
run --list "$TMP/list.txt" "$S/reference.tif" >"$TMP/list.csv" && cmp -s "$TMP/list.csv" "$TMP/args.csv" \
    && pass "--list FILE (comments and blank lines skipped)" || fail "--list FILE"
run --list - "$S/reference.tif" <"$TMP/list.txt" >"$TMP/stdin.csv" && cmp -s "$TMP/stdin.csv" "$TMP/args.csv" \
    && pass "--list - (standard input)" || fail "--list -"
printf '%s\n' "$S/image_0002.tif" "$S/image_0003.tif" >"$TMP/rest.txt"
run --list "$TMP/rest.txt" "$S/reference.tif" "$S/image_0001.tif" >"$TMP/mixed.csv" && cmp -s "$TMP/mixed.csv" "$TMP/args.csv" \
    && pass "arguments first, then --list" || fail "arguments + --list"

# Multi-page: pages named PATH#N, results identical to the single files.
"$IMGTOOL" pages "$TMP/stack.tif" "$S/image_0001.tif" "$S/image_0002.tif" "$S/image_0003.tif" || exit 99
run "$S/reference.tif" "$TMP/stack.tif" >"$TMP/stack.csv" || fail "multi-page run"
cut -d, -f2- "$TMP/stack.csv" >"$TMP/a" && cut -d, -f2- "$TMP/args.csv" >"$TMP/b" && cmp -s "$TMP/a" "$TMP/b" \
    && pass "a 3-page TIFF gives the same offsets as 3 files" || fail "multi-page offsets differ"
[ "$(cut -d, -f1 "$TMP/stack.csv" | sort -u | grep -c '#')" -eq 3 ] && grep -q "^$TMP/stack.tif#2," "$TMP/stack.csv" \
    && pass "pages named PATH#0..PATH#2" || fail "page names: $(cut -d, -f1 "$TMP/stack.csv" | sort -u | tr '\n' ' ')"
run "$S/reference.tif" "$TMP/stack.tif#1" >"$TMP/page1.csv" || fail "PATH#1"
grep -v '^image' "$TMP/page1.csv" | cut -d, -f2- >"$TMP/a"
grep "image_0002.tif," "$TMP/args.csv" | cut -d, -f2- >"$TMP/b"
cmp -s "$TMP/a" "$TMP/b" && grep -q "^$TMP/stack.tif#1," "$TMP/page1.csv" \
    && pass "PATH#1 selects page 1" || fail "PATH#1 selection"
expect_failure "page out of range" 1 "stack.tif has 3 pages \(from 0\); page 7 does not exist" run "$S/reference.tif" "$TMP/stack.tif#7"
"$IMGTOOL" pages "$TMP/refstack.tif" "$S/reference.tif" "$S/image_0001.tif" || exit 99
expect_failure "multi-page reference" 1 "refstack.tif has 2 pages; name one as" run "$TMP/refstack.tif" "$S/image_0001.tif"
run "$TMP/refstack.tif#0" "$S/image_0001.tif" >"$TMP/refpage.csv" && grep "image_0001.tif," "$TMP/args.csv" >"$TMP/b" \
    && grep -v '^image' "$TMP/refpage.csv" | cmp -s - "$TMP/b" && pass "REFERENCE#0" || fail "REFERENCE#0"

# 8-bit TIFF and PNG with the same pixels: identical offsets.
for f in reference image_0001 image_0002; do
    "$IMGTOOL" tiff8 "$TMP/$f.8.tif" "$S/$f.tif" && "$IMGTOOL" png8 "$TMP/$f.png" "$S/$f.tif" || exit 99
done
run "$TMP/reference.8.tif" "$TMP/image_0001.8.tif" "$TMP/image_0002.8.tif" | cut -d, -f2- >"$TMP/tif8.csv"
run "$TMP/reference.png" "$TMP/image_0001.png" "$TMP/image_0002.png" | cut -d, -f2- >"$TMP/png8.csv"
[ "$(wc -l <"$TMP/png8.csv")" -eq 13 ] && cmp -s "$TMP/tif8.csv" "$TMP/png8.csv" \
    && pass "8-bit TIFF and PNG give identical offsets" || fail "8-bit TIFF vs PNG"
# A 16-bit reference with 8-bit images (a PNG and a TIFF): mixed pixel
# types in one run, each image staged as the reference's type with its
# values as they are. Seed mode against the host reference on the same
# files (which reads each at its own type): measured 1e-6 px and 1.2e-7
# of the peak (whose scale is the raw values'); bound 3e-6.
run --mode seed "$S/reference.tif" "$TMP/image_0001.png" "$TMP/image_0002.8.tif" >"$TMP/mixed.seed.csv" \
    || fail "mixed types, seed mode"
"$CLXCORR_REF" --regions "$S/regions.txt" "$S/reference.tif" "$TMP/image_0001.png" "$TMP/image_0002.8.tif" \
    >"$TMP/mixed.ref.csv" || fail "clxcorr-ref, mixed types"
compare_csv "16-bit reference, 8-bit images, seed mode against the host reference" "$TMP/mixed.seed.csv" \
    "$TMP/mixed.ref.csv" 3e-6
# Accurate mode against the truth (the 8-bit images lose the low 8 bits,
# so that IC-GN may stop short of its tolerance: flag 32, no other):
# measured 0.0179 px RMS (0.0168 with the 16-bit images); bound 0.054.
run -q "$S/reference.tif" "$TMP/image_0001.png" "$TMP/image_0002.8.tif" >"$TMP/mixed.csv" || fail "mixed types"
awk -F, 'NR == FNR { if (FNR > 1) truth[$1 "," $2] = $5 "," $6; next }
    FNR > 1 { n = split($1, path, "/"); sub(/\.(png|8\.tif)$/, ".tif", path[n]); key = path[n] "," $2
              if (!(key in truth) || ($8 != 0 && $8 != 32)) { bad = 1; next }
              split(truth[key], t, ","); ex = $5 - t[1]; ey = $6 - t[2]; sum += ex * ex + ey * ey; rows++ }
    END { printf "%.3g px RMS over %d rows", rows ? sqrt(sum / rows) : 9, rows; exit bad || rows != 12 || !(sqrt(sum / rows) <= 0.054) }' \
    "$S/truth.csv" "$TMP/mixed.csv" >"$TMP/mixed.rms" \
    && pass "16-bit reference, 8-bit images, accurate mode: $(cat "$TMP/mixed.rms") off the truth (bound 0.054)" \
    || fail "16-bit reference, 8-bit images, accurate mode: $(cat "$TMP/mixed.rms") off the truth"
finish
