#!/bin/sh
# `clxcorr correlate`: float TIFF surfaces in the four forms, whole images or
# windows, full or bounded, every value against the double-precision host
# reference (tests/host_ref.c through clxcorr-ref --surface); each surface's
# maximum is the integer peak that `clxcorr offsets` finds; the page index
# lists the pairs in form order.
. "$TESTS_SRCDIR/lib.sh"
need_device
make_small_set "$TMP/set" 4
S=$TMP/set
R=$S/reference.tif
I1=$S/image_0001.tif I2=$S/image_0002.tif I3=$S/image_0003.tif I4=$S/image_0004.tif

# surfaces_match NAME OUT.tif REF.csv BOUND: every value of OUT.tif's pages
# (imgtool values) against clxcorr-ref --surface's REF.csv (the same pages
# in the same order), the largest difference relative to the page's largest
# |C| at most BOUND; a missing or extra value fails.
surfaces_match() {
    "$IMGTOOL" values "$2" >"$TMP/values.csv" || { fail "$1: imgtool values $2"; return; }
    # Page width 2 Rx + 1: the device's pixel (x, y) is the reference's shift (x - Rx, y - Ry).
    if awk -F, -v bound="$4" '
        FNR == 1 { next }
        NR == FNR { v[$1, $2, $3] = $4; if ($2 > X) X = $2; if ($3 > Y) Y = $3; n++; next }
        { k = $1 SUBSEP ($2 + X / 2) SUBSEP ($3 + Y / 2)
          if (!(k in v)) { missing++; next }
          d = v[k] - $4; if (d < 0) d = -d; if (d > dmax[$1]) dmax[$1] = d
          a = $4 < 0 ? -$4 : $4; if (a > cmax[$1]) cmax[$1] = a; m++; if (!(($1) in pages)) np++; pages[$1] = 1 }
        END { for (p in pages) { r = cmax[p] > 0 ? dmax[p] / cmax[p] : 1; if (r > worst) worst = r }
              printf "%d values of %d pages, worst difference %.3g of a page'"'"'s largest |C| (bound %s)\n", m, np, worst, bound
              exit missing || m != n || !(worst <= bound) }' "$TMP/values.csv" "$3" >"$TMP/surf"; then
        pass "$1: the host reference's surfaces: $(cat "$TMP/surf")"
    else
        fail "$1: $(cat "$TMP/surf")"
    fi
}

# one-to-many, windowed, bounded: maxima agree with offsets' integer peaks.
"$CLXCORR" correlate --max-shift 6 --regions "$S/regions.txt" -o "$TMP/o2m.tif" "$R" "$I1" "$I2" "$I3" >"$TMP/o2m.csv" \
    || fail "one-to-many"
[ -f "$TMP/o2m.tif" ] && [ ! -e "$TMP/o2m.tif.part" ] && pass "OUT.tif written, no .part left" || fail "output file"
"$IMGTOOL" argmax "$TMP/o2m.tif" >"$TMP/o2m.max" || fail "reading the surfaces"
[ "$(wc -l <"$TMP/o2m.max")" -eq 18 ] && [ "$(awk '$2 != 13 || $3 != 13' "$TMP/o2m.max" | wc -l)" -eq 0 ] \
    && pass "18 pages of 13x13 (3 images x 6 windows, shifts -6..6)" || fail "pages: $(head -3 "$TMP/o2m.max")"
"$CLXCORR" offsets --mode seed --max-shift 6 --regions "$S/regions.txt" "$R" "$I1" "$I2" "$I3" >"$TMP/o2m.offsets" \
    || fail "offsets"
# The host reference's surfaces (its FFT in double; the pages are float32):
# measured 2.3e-7 of the page's largest |C| through the FFT and 1.4e-6
# through the direct sums (PoCL, float); bounds three times that.
"$CLXCORR_REF" --surface 6 --regions "$S/regions.txt" "$R" "$I1" "$I2" "$I3" >"$TMP/o2m.ref" || fail "clxcorr-ref --surface"
surfaces_match "one-to-many, --max-shift 6" "$TMP/o2m.tif" "$TMP/o2m.ref" 7e-7
# Page n's maximum at pixel (x, y) is the shift (x - 6, y - 6): the host
# surface's largest value, and the integer peak of the offset (dx minus the
# sub-pixel part the reference's fit found, which is at most 2 px: F = 5).
awk -F, 'NR > 1 && (!(($1) in best) || $4 > best[$1]) { best[$1] = $4; at[$1] = $2 "," $3 }
         END { for (p = 0; p in at; p++) print at[p] }' "$TMP/o2m.ref" >"$TMP/ref.max"
awk '{ print $4 - 6 "," $5 - 6 }' "$TMP/o2m.max" | cmp -s - "$TMP/ref.max" \
    && pass "every surface maximum is the host reference's largest value" \
    || fail "maxima vs the host reference: $(awk '{ print $4 - 6 "," $5 - 6 }' "$TMP/o2m.max" | diff - "$TMP/ref.max" | head -4)"
"$CLXCORR_REF" --max-shift 6 --regions "$S/regions.txt" "$R" "$I1" "$I2" "$I3" >"$TMP/o2m.refrows" || fail "clxcorr-ref"
# Measured 1e-6 px, the CSV's last digit.
compare_csv "offsets --mode seed --max-shift 6 against the host reference" "$TMP/o2m.offsets" "$TMP/o2m.refrows" 3e-6
awk 'NR == FNR { ux[FNR] = $4 - 6; uy[FNR] = $5 - 6; next }
     FNR > 1 { n = FNR - 1; if ($5 - ux[n] > 2 || ux[n] - $5 > 2 || $6 - uy[n] > 2 || uy[n] - $6 > 2) { print "page " n - 1 ": " ux[n] "," uy[n] " vs " $5 "," $6; bad++ } }
     END { exit bad }' "$TMP/o2m.max" FS=, "$TMP/o2m.offsets" >"$TMP/cmp" \
    && pass "every surface maximum lies within the fit's reach of its offset" || fail "maxima vs offsets: $(head -3 "$TMP/cmp")"
head -2 "$TMP/o2m.csv" | tail -1 | grep -q "^0,$R,$I1,0,8,8,32,32,6,6$" \
    && pass "page index: $(sed -n 2p "$TMP/o2m.csv")" || fail "page index: $(head -2 "$TMP/o2m.csv")"
"$CLXCORR" correlate --method direct --max-shift 6 --regions "$S/regions.txt" -o "$TMP/o2m_d.tif" "$R" "$I1" "$I2" "$I3" \
    >/dev/null && "$IMGTOOL" argmax "$TMP/o2m_d.tif" | awk '{ print $1, $4, $5 }' >"$TMP/d.max" \
    && awk '{ print $1, $4, $5 }' "$TMP/o2m.max" | cmp -s - "$TMP/d.max" \
    && pass "direct and fft surfaces have the same maxima" || fail "direct vs fft surfaces"
surfaces_match "--method direct" "$TMP/o2m_d.tif" "$TMP/o2m.ref" 4.5e-6

# one-to-one, whole images (default window), full search.
"$CLXCORR" correlate --form one-to-one -o "$TMP/o2o.tif" "$R" "$I1" >/dev/null || fail "one-to-one"
"$IMGTOOL" argmax "$TMP/o2o.tif" >"$TMP/o2o.max"
[ "$(cut -d' ' -f1-3 "$TMP/o2o.max")" = "0 319 255" ] && pass "whole-image surface 319x255" \
    || fail "whole image: $(cat "$TMP/o2o.max")"
# Measured 2.0e-7 (PoCL).
"$CLXCORR_REF" --surface 999 --grid 1x1 --window 160x128 "$R" "$I1" >"$TMP/o2o.ref" || fail "clxcorr-ref, whole image"
surfaces_match "one-to-one, whole images" "$TMP/o2o.tif" "$TMP/o2o.ref" 6e-7

# n-to-mn: 2 lefts, each with its own 2 rights; n-to-m: 2 lefts x 2 rights.
"$CLXCORR" correlate --form n-to-mn --lefts 2 --grid 2x1 --window 32x32 --max-shift 4 -o "$TMP/nmn.tif" \
    "$R" "$I1" "$I2" "$I3" "$I3" "$I4" >"$TMP/nmn.csv" || fail "n-to-mn"
cut -d, -f2,3,4 "$TMP/nmn.csv" | tail -n +2 | tr '\n' ' ' >"$TMP/nmn.pairs"
[ "$(cat "$TMP/nmn.pairs")" = "$R,$I2,0 $R,$I2,1 $R,$I3,0 $R,$I3,1 $I1,$I3,0 $I1,$I3,1 $I1,$I4,0 $I1,$I4,1 " ] \
    && pass "n-to-mn pairs in order" || fail "n-to-mn pairs: $(cat "$TMP/nmn.pairs")"
# The host reference's pages: the reference's with its rights, then I1's (pages renumbered from 4).
"$CLXCORR_REF" --surface 4 --grid 2x1 --window 32x32 "$R" "$I2" "$I3" >"$TMP/nmn.ref" &&
    "$CLXCORR_REF" --surface 4 --grid 2x1 --window 32x32 "$I1" "$I3" "$I4" | awk -F, -v OFS=, 'NR > 1 { $1 += 4; print }' \
    >>"$TMP/nmn.ref" || fail "clxcorr-ref, n-to-mn"
surfaces_match "n-to-mn" "$TMP/nmn.tif" "$TMP/nmn.ref" 7e-7
"$CLXCORR" correlate --form n-to-m --lefts 2 --grid 2x1 --window 32x32 --max-shift 4 -o "$TMP/nm.tif" \
    "$R" "$I1" "$I2" "$I3" >"$TMP/nm.csv" || fail "n-to-m"
cut -d, -f2,3 "$TMP/nm.csv" | tail -n +2 | sort -u | tr '\n' ' ' >"$TMP/nm.pairs"
[ "$(cat "$TMP/nm.pairs")" = "$I1,$I2 $I1,$I3 $R,$I2 $R,$I3 " ] && [ "$(($(wc -l <"$TMP/nm.csv") - 1))" -eq 8 ] \
    && pass "n-to-m: every left with every right" || fail "n-to-m pairs: $(cat "$TMP/nm.pairs")"
# The n-to-m page for (I1, I2) equals the one-to-many page for I1 -> I2.
"$CLXCORR" correlate --grid 2x1 --window 32x32 --max-shift 4 -o "$TMP/i1.tif" "$I1" "$I2" >/dev/null || fail "i1"
"$IMGTOOL" argmax "$TMP/i1.tif" | awk '{ print $4, $5, $6 }' >"$TMP/a" && "$IMGTOOL" argmax "$TMP/nm.tif" | \
    awk 'NR == 5 || NR == 6 { print $4, $5, $6 }' >"$TMP/b" && cmp -s "$TMP/a" "$TMP/b" \
    && pass "n-to-m pages match the one-to-many ones" || fail "n-to-m page values"

expect_failure "no output" 2 "correlate needs -o OUT.tif" "$CLXCORR" correlate "$R" "$I1"
expect_failure "one-to-one with 3 images" 2 "one-to-one takes exactly 2 images" \
    "$CLXCORR" correlate --form one-to-one -o "$TMP/x.tif" "$R" "$I1" "$I2"
expect_failure "n-to-mn not divisible" 2 "3 right images do not divide among 2 left images" \
    "$CLXCORR" correlate --form n-to-mn --lefts 2 -o "$TMP/x.tif" "$R" "$I1" "$I2" "$I3" "$I4"
expect_failure "unknown form" 2 "unknown form 'many-to-few'" "$CLXCORR" correlate --form many-to-few -o "$TMP/x.tif" "$R" "$I1"
expect_failure "missing right image" 1 "nope.tif: No such file or directory" \
    "$CLXCORR" correlate -o "$TMP/y.tif" "$R" "$I1" "$TMP/nope.tif"
[ ! -e "$TMP/y.tif" ] && [ -e "$TMP/y.tif.part" ] && pass "a failed run leaves OUT.tif.part only" || fail "failed run files"
finish
