#!/bin/sh
# --reference pairs and previous through the command, on a speckle set
# moved 0.1 px per image along both axes (clxcorr-samples --kind speckle):
# - pairs whose frame A is always the reference give the rows of the
#   default scheme, number for number, in both modes; a reference column
#   names each row's frame A;
# - pairs of two moved images measure the difference of their moves, from
#   arguments and from a --list of "A B" lines and of single lines;
# - previous: each image against the one before, total_dx, total_dy the
#   sum along the sequence (the truth's, the first image's against
#   REFERENCE), on the speckle set and on a sequence of random steps given
#   out of order;
# - the refusals, each one line: an odd number of images (exit 2, from
#   arguments, a list, with PIV passes), and the options
#   a pair or a sequence does not combine with.
. "$TESTS_SRCDIR/lib.sh"
need_device

"$CLXCORR_SAMPLES" --out "$TMP/s" --kind speckle --size 192x160 --count 5 --grid 3x2 --window 40x40 --margin 16 \
    >/dev/null 2>&1 || exit 99
S=$TMP/s
off() {
    "$CLXCORR" offsets -q --regions "$S/regions.txt" "$@"
}

# Pairs against the reference are the default scheme's rows.
for mode in accurate seed; do
    off --mode $mode "$S/reference.tif" "$S"/image_000[2-5].tif | cut -d, -f2- >"$TMP/first.$mode"
    set --
    for k in 2 3 4 5; do set -- "$@" "$S/reference.tif" "$S/image_000$k.tif"; done
    off --mode $mode --reference pairs "$@" >"$TMP/pairs.$mode.csv" || fail "$mode: pairs failed"
    cut -d, -f1,3- "$TMP/pairs.$mode.csv" | cut -d, -f2- | cmp -s - "$TMP/first.$mode" \
        && pass "$mode: pairs against the reference give the default scheme's rows" \
        || fail "$mode: pairs against the reference differ from the default scheme's rows"
    awk -F, 'NR > 1 && $2 !~ /reference.tif$/ { bad++ } END { exit bad > 0 }' "$TMP/pairs.$mode.csv" \
        && pass "$mode: the reference column names frame A" || fail "$mode: reference column: $(sed -n 2p "$TMP/pairs.$mode.csv")"
done

# Pairs of moved images: image k moved (k - 1) 0.1 px along both axes.
check_moves() {
    name=$1 file=$2
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        { n = split($col["image"], b, "_"); m = split($col["reference"], a, "_")
          want = (substr(b[n], 1, 4) - substr(a[m], 1, 4)) * 0.1
          e = $col["dx"] - want; if (e < 0) e = -e; if (e > worst) worst = e
          e = $col["dy"] - want; if (e < 0) e = -e; if (e > worst) worst = e; rows++ }
        END { printf "%d %.5f", rows, worst }' "$file" >"$TMP/moves"
    read -r rows worst <"$TMP/moves"
    awk -v w="$worst" 'BEGIN { exit !(w <= 0.005) }' && [ "$rows" -eq "$3" ] \
        && pass "$name: $rows rows, the moves' differences within $worst px" \
        || fail "$name: $rows rows (want $3), worst error $worst px"
}
off --reference pairs "$S/image_0001.tif" "$S/image_0003.tif" "$S/image_0004.tif" "$S/image_0002.tif" \
    >"$TMP/moved.csv" || fail "pairs of moved images failed"
check_moves "pairs from arguments" "$TMP/moved.csv" 12
printf '%s %s\n%s\n%s\n' "$S/image_0001.tif" "$S/image_0005.tif" "$S/image_0003.tif" "$S/image_0002.tif" \
    >"$TMP/pairs.txt"
off --reference pairs --list "$TMP/pairs.txt" >"$TMP/listed.csv" || fail "pairs from a list failed"
check_moves "pairs from a list ('A B' and single lines)" "$TMP/listed.csv" 12

# A sequence: each image against the one before, and the totals.
off --reference previous --columns image,reference,region,dx,dy,total_dx,total_dy "$S/reference.tif" \
    "$S"/image_000[1-5].tif >"$TMP/previous.csv" || fail "previous failed"
awk -F, 'NR > 1 { n = split($1, b, "_"); want = (substr(b[n], 1, 4) - 1) * 0.1
                  e = $6 - want; if (e < 0) e = -e; if (e > worst) worst = e
                  e = $7 - want; if (e < 0) e = -e; if (e > worst) worst = e }
         END { printf "%.5f", worst }' "$TMP/previous.csv" >"$TMP/tot"
awk -v w="$(cat "$TMP/tot")" 'BEGIN { exit !(w <= 0.005) }' \
    && pass "previous: totals within $(cat "$TMP/tot") px of the truth" \
    || fail "previous: totals off by $(cat "$TMP/tot") px"
sed -n 8p "$TMP/previous.csv" | grep -q "image_0002.tif,$S/image_0001.tif,0," \
    && pass "previous: image 2's reference is image 1" || fail "previous: row 7: $(sed -n 8p "$TMP/previous.csv")"

# A sequence whose steps differ: Kikuchi-like patterns each moved by its
# own random translation (up to 2.5 px per axis, no strain), given out of
# order (3 1 5 2 6 4), so that every step differs in length and direction
# and a total that is not the sum of its steps (k times the last one, say)
# shows. Each row against the truth: its step, the truth of its image
# minus that of its reference (the previous item), and its total, the
# truth of its image. Windows 28 px from the edge, clear of the
# pre-filter's border. Measured (PoCL): steps within 0.00132 px, totals
# within 0.00294 px; bounds 0.004 and 0.009.
Q=$TMP/q
"$CLXCORR_SAMPLES" --out "$Q" --size 224x192 --count 6 --grid 3x2 --window 40x40 --margin 28 --max-shift 2.5 \
    --max-strain 0 >/dev/null 2>&1 || exit 99
set --
for k in 3 1 5 2 6 4; do set -- "$@" "$Q/image_000$k.tif"; done
off -q --regions "$Q/regions.txt" --reference previous --columns image,reference,region,dx,dy,total_dx,total_dy \
    "$Q/reference.tif" "$@" >"$TMP/steps.csv" || fail "previous over uneven steps failed"
awk -F, 'NR == FNR { if (FNR > 1) { tx[$1, $2] = $5; ty[$1, $2] = $6 } next }
    FNR > 1 { n = split($1, a, "/"); m = split($2, b, "/"); img = a[n]; ref = b[m]
              sx = tx[img, $3] - (ref == "reference.tif" ? 0 : tx[ref, $3])
              sy = ty[img, $3] - (ref == "reference.tif" ? 0 : ty[ref, $3])
              if (!((img, $3) in tx) || (ref != "reference.tif" && !((ref, $3) in tx))) { bad = 1; next }
              e = $4 - sx; if (e < 0) e = -e; if (e > ws) ws = e; e = $5 - sy; if (e < 0) e = -e; if (e > ws) ws = e
              if (sx * sx + sy * sy > big) big = sx * sx + sy * sy
              e = $6 - tx[img, $3]; if (e < 0) e = -e; if (e > wt) wt = e; e = $7 - ty[img, $3]; if (e < 0) e = -e; if (e > wt) wt = e
              rows++ }
    END { printf "%d rows, steps up to %.2f px within %.3g px of the truth, totals within %.3g px", rows, sqrt(big), ws, wt
          exit bad || rows != 36 || !(ws <= 0.004) || !(wt <= 0.009) }' "$Q/truth.csv" "$TMP/steps.csv" >"$TMP/steps" \
    && pass "previous over uneven steps, out of order: $(cat "$TMP/steps")" || fail "previous over uneven steps: $(cat "$TMP/steps")"
# Each image's reference is the one before it in the list, the first's REFERENCE.
cut -d, -f1,2 "$TMP/steps.csv" | sed 's|[^,]*/||g' | uniq | tr '\n' ' ' >"$TMP/chain"
[ "$(cat "$TMP/chain")" = "image,reference image_0003.tif,reference.tif image_0001.tif,image_0003.tif image_0005.tif,image_0001.tif image_0002.tif,image_0005.tif image_0006.tif,image_0002.tif image_0004.tif,image_0006.tif " ] \
    && pass "previous: each image against the one before it in the list" || fail "previous: the chain $(cat "$TMP/chain")"

# Refusals.
# A usage error (2), known once the list is read: a multi-page TIFF's
# pages are images, so the arguments alone do not tell.
expect_failure "an odd number of images" 2 "^clxcorr: error: .*two by two.*: 3 is an odd number\$" \
    "$CLXCORR" offsets --reference pairs --regions "$S/regions.txt" "$S/image_0001.tif" "$S/image_0002.tif" \
    "$S/image_0003.tif"
printf '%s %s\n%s\n' "$S/image_0001.tif" "$S/image_0002.tif" "$S/image_0003.tif" >"$TMP/odd.txt"
expect_failure "an odd number of images listed" 2 "two by two.*: 3 is an odd number\$" \
    "$CLXCORR" offsets --reference pairs --regions "$S/regions.txt" --list "$TMP/odd.txt"
expect_failure "an odd number of PIV frames" 2 "two by two.*: 1 is an odd number\$" \
    "$CLXCORR" offsets --reference pairs --grid-step 32 --window 64,32 "$S/image_0001.tif"
expect_failure "an unknown scheme" 2 "--reference: unknown scheme 'next'" \
    "$CLXCORR" offsets --reference next --regions "$S/regions.txt" "$S/reference.tif" "$S/image_0001.tif"
for opts in "--shard 1/2" "--resume -o $TMP/x.csv" "--refine correlation" "--passes 2" "--quiver $TMP/q.png"; do
    # shellcheck disable=SC2086
    expect_failure "previous with $opts" 2 "--reference previous" \
        "$CLXCORR" offsets --reference previous $opts --regions "$S/regions.txt" "$S/reference.tif" \
        "$S/image_0001.tif"
done
finish
