#!/bin/sh
# `clxcorr filter` end to end: values on images whose result is known
# (identity, constants through each filter kind, an ROI moved elsewhere),
# one multi-page file (-o) against one file per input (--output-dir),
# multi-page and 8-bit inputs, --out-type u16 rounding and clamping, --double,
# and the errors: exit status, one message, nothing written.
# test_filter checks the values themselves against the host reference.
. "$TESTS_SRCDIR/lib.sh"
need_device
make_small_set "$TMP/set" 3
S=$TMP/set
R=$S/reference.tif I1=$S/image_0001.tif I2=$S/image_0002.tif
F() { "$CLXCORR" filter "$@"; }
stats() { "$IMGTOOL" stats "$1"; }

# check_stats NAME FILE EXPECTED TOL: every page's "min max mean" within TOL
# of EXPECTED ("min max mean" per line, one line per page).
check_stats() {
    name=$1 file=$2 want=$3 tol=$4
    stats "$file" | awk '{ print $5, $6, $7 }' >"$TMP/got" || { fail "$name: cannot read $file"; return; }
    printf '%s\n' "$want" >"$TMP/want"
    if paste -d' ' "$TMP/got" "$TMP/want" | awk -v tol="$tol" '
        { for (i = 1; i <= 3; i++) { d = $i - $(i + 3); if (d < 0) d = -d; if (d > tol) bad = 1 } n++ }
        END { exit bad || n == 0 }' && [ "$(wc -l <"$TMP/got")" -eq "$(wc -l <"$TMP/want")" ]; then
        pass "$name: $(tr '\n' ';' <"$TMP/got")"
    else
        fail "$name: got $(tr '\n' ';' <"$TMP/got") want $(tr '\n' ';' <"$TMP/want") (tolerance $tol)"
    fi
}

# Identity: the input's values, as 32-bit floats.
F --filter taps:0,1,0 -o "$TMP/id.tif" "$R" || fail "identity run"
[ "$(stats "$TMP/id.tif" | cut -d' ' -f1-4)" = "0 160 128 32" ] && pass "32-bit float output" \
    || fail "identity output: $(stats "$TMP/id.tif")"
check_stats "identity keeps the values" "$TMP/id.tif" "$(stats "$R" | awk '{ print $5, $6, $7 }')" 0

# Constants through each kind of filter (and the tiled and separable paths).
"$IMGTOOL" fill "$TMP/c.tif" 100 80 1234 || exit 99
F --filter gaussian:0.3 -o "$TMP/g3.tif" "$TMP/c.tif" && check_stats "gaussian 3x3 of a constant" "$TMP/g3.tif" \
    "1234 1234 1234" 0.01 || fail "gaussian:0.3"
F --filter gaussian:4 --border zero --roi 30,30,40,20 -o "$TMP/gz.tif" "$TMP/c.tif" \
    && stats "$TMP/gz.tif" | awk '{ exit !($5 < 1234 / 3 && $6 == 1234) }' \
    && pass "gaussian with the zero border darkens the ROI's edges" || fail "zero border: $(stats "$TMP/gz.tif")"
F --filter highpass:2 -o "$TMP/hp.tif" "$TMP/c.tif" && check_stats "highpass of a constant" "$TMP/hp.tif" "0 0 0" 0.05 \
    || fail "highpass:2"
F --filter background-divide:3 --border clamp -o "$TMP/bd.tif" "$TMP/c.tif" \
    && check_stats "background-divide of a constant" "$TMP/bd.tif" "1 1 1" 1e-5 || fail "background-divide:3"
F --filter background:5+gaussian:0.5 -o "$TMP/chain.tif" "$TMP/c.tif" \
    && check_stats "a chain" "$TMP/chain.tif" "0 0 0" 0.05 || fail "chain"

# An ROI filtered into another place: the target is 0 (highpass of a
# constant), everything else the input.
"$IMGTOOL" fill "$TMP/c4.tif" 100 80 40000 || exit 99
F --filter highpass:2 --roi 10,10,30,20 --target 50,40 -o "$TMP/roi.tif" "$TMP/c4.tif" \
    && check_stats "ROI moved to --target" "$TMP/roi.tif" "0 40000 37000" 0.05 || fail "roi"
F --filter highpass:2 --roi 10,10,30,20 -o "$TMP/roi2.tif" "$TMP/c4.tif" \
    && check_stats "ROI in place" "$TMP/roi2.tif" "0 40000 37000" 0.05 || fail "roi in place"

# -o: one page per input, in order; --output-dir: one file each, the same pages.
F --filter gaussian:1.5 -o "$TMP/all.tif" "$R" "$I1" "$I2" || fail "-o with 3 inputs"
F --filter gaussian:1.5 --output-dir "$TMP/dir1" "$R" "$I1" "$I2" || fail "--output-dir"
[ "$(stats "$TMP/all.tif" | wc -l)" -eq 3 ] && pass "-o: 3 pages" || fail "-o pages: $(stats "$TMP/all.tif")"
[ "$(ls "$TMP/dir1" | tr '\n' ' ')" = "image_0001.tif image_0002.tif reference.tif " ] \
    && pass "--output-dir: DIR/NAME.tif per input" || fail "--output-dir files: $(ls "$TMP/dir1")"
for f in reference image_0001 image_0002; do stats "$TMP/dir1/$f.tif" | cut -d' ' -f2-; done >"$TMP/dir.stats"
stats "$TMP/all.tif" | cut -d' ' -f2- >"$TMP/all.stats"
cmp -s "$TMP/dir.stats" "$TMP/all.stats" && pass "-o pages equal the --output-dir files, in input order" \
    || fail "-o vs --output-dir: $(cat "$TMP/all.stats") vs $(cat "$TMP/dir.stats")"
[ -z "$(ls "$TMP" | grep '\.part$')" ] && [ -z "$(ls "$TMP/dir1" | grep '\.part$')" ] && pass "no .part files left" \
    || fail ".part files left"

# Multi-page and 8-bit inputs.
"$IMGTOOL" pages "$TMP/stack.tif" "$R" "$I1" "$I2" || exit 99
"$IMGTOOL" tiff8 "$TMP/r8.tif" "$R" || exit 99
F --filter gaussian:1.5 -o "$TMP/stack_o.tif" "$TMP/stack.tif" && stats "$TMP/stack_o.tif" | cut -d' ' -f2- \
    | cmp -s - "$TMP/all.stats" && pass "a multi-page input: every page, in order" || fail "multi-page -o"
F --filter gaussian:1.5 --output-dir "$TMP/dir2" "$TMP/stack.tif" "$TMP/r8.tif" \
    && [ "$(stats "$TMP/dir2/stack.tif" | wc -l)" -eq 3 ] && [ "$(stats "$TMP/dir2/r8.tif" | wc -l)" -eq 1 ] \
    && pass "--output-dir: a multi-page input's pages go into its file" || fail "multi-page --output-dir"
F --filter taps:0,1,0 -o "$TMP/page1.tif" "$TMP/stack.tif#1" || fail "PATH#N run"
[ "$(stats "$TMP/page1.tif" | cut -d' ' -f5-)" = "$(stats "$I1" | cut -d' ' -f5-)" ] \
    && pass "PATH#N filters one page" || fail "PATH#N: $(stats "$TMP/page1.tif")"
check_stats "8-bit input" "$TMP/dir2/r8.tif" "$(F --filter gaussian:1.5 -o "$TMP/r8b.tif" "$TMP/r8.tif" \
    && stats "$TMP/r8b.tif" | awk '{ print $5, $6, $7 }')" 0

# --out-type u16: rounded to nearest, clamped (and counted).
# (taps:0,0.5,0 scales by 0.25: 1234 -> 308.5, 1233 -> 308.25, exact in float)
F --filter taps:0,0.5,0 --out-type u16 -o "$TMP/half.tif" "$TMP/c.tif" \
    && [ "$(stats "$TMP/half.tif" | cut -d' ' -f4-)" = "16 309 309 309" ] && pass "u16: 308.5 rounds to 309" \
    || fail "u16 rounding: $(stats "$TMP/half.tif")"
"$IMGTOOL" fill "$TMP/c3.tif" 100 80 1233 || exit 99
F --filter taps:0,0.5,0 --out-type u16 -o "$TMP/quarter.tif" "$TMP/c3.tif" \
    && [ "$(stats "$TMP/quarter.tif" | cut -d' ' -f4-)" = "16 308 308 308" ] && pass "u16: 308.25 rounds to 308" \
    || fail "u16 rounding: $(stats "$TMP/quarter.tif")"
F --filter taps:0,2,0 --out-type u16 -o "$TMP/clamp.tif" "$TMP/c4.tif" 2>"$TMP/clamp.err" \
    && [ "$(stats "$TMP/clamp.tif" | cut -d' ' -f4-)" = "16 65535 65535 65535" ] \
    && grep -q "warning: --out-type u16: clamped 8000 pixels (in 1 image) to 0..65535" "$TMP/clamp.err" \
    && pass "u16 clamping: $(cat "$TMP/clamp.err")" || fail "u16 clamping: $(stats "$TMP/clamp.tif") $(cat "$TMP/clamp.err")"
F --filter highpass:2 --out-type u16 -o "$TMP/neg.tif" "$R" "$I1" 2>"$TMP/neg.err" \
    && [ "$(stats "$TMP/neg.tif" | awk '$5 == 0' | wc -l)" -eq 2 ] && grep -q "(in 2 images) to 0..65535" "$TMP/neg.err" \
    && pass "u16 clamps negative values to 0" || fail "u16 negatives: $(cat "$TMP/neg.err")"
F --filter taps:0,2,0 --out-type u16 -q -o "$TMP/quiet.tif" "$TMP/c4.tif" 2>"$TMP/quiet.err" && [ ! -s "$TMP/quiet.err" ] \
    && pass "-q: no warning" || fail "-q: $(cat "$TMP/quiet.err")"

# --double: the same values, to float precision.
F --filter background:4+taps:1,2,1 --double -o "$TMP/dbl.tif" "$R" || fail "--double"
F --filter background:4+taps:1,2,1 -o "$TMP/flt.tif" "$R" || fail "float"
check_stats "--double agrees with float" "$TMP/dbl.tif" "$(stats "$TMP/flt.tif" | awk '{ print $5, $6, $7 }')" 1

# Help and errors.
F --help >"$TMP/h1" && "$CLXCORR" help filter >"$TMP/h2" && cmp -s "$TMP/h1" "$TMP/h2" \
    && grep -q "Usage: clxcorr filter" "$TMP/h1" && grep -q "clamped to 0..65535" "$TMP/h1" && grep -q "Examples:" "$TMP/h1" \
    && pass "filter --help" || fail "filter --help"
"$CLXCORR" --help | grep -q "^  filter " && pass "clxcorr --help lists filter" || fail "main help"

cp "$TMP/c.tif" "$TMP/keep.tif"
expect_failure "no --filter" 2 "filter needs --filter SPEC" F -o "$TMP/x.tif" "$R"
expect_failure "bad spec" 2 "filter spec 'gaussian:-1': sigma must be positive" F --filter gaussian:-1 -o "$TMP/x.tif" "$R"
expect_failure "bad stage" 2 "filter spec 'gaussian:1\+blur:2': stage 2 'blur:2': unknown filter 'blur'" \
    F --filter gaussian:1+blur:2 -o "$TMP/x.tif" "$R"
expect_failure "sigma too large" 2 "sigma 30 needs a radius of ceil\(3 x 30\) = 90; at most 64" \
    F --filter background:30 -o "$TMP/x.tif" "$R"
expect_failure "unknown border" 2 "--border: unknown rule 'wrap' \(mirror, clamp or zero\)" \
    F --filter gaussian:1 --border wrap -o "$TMP/x.tif" "$R"
expect_failure "bad ROI" 2 "--roi: expected X,Y,W,H \(e.g. 10,20,256,256\), got '1,2,3'" \
    F --filter gaussian:1 --roi 1,2,3 -o "$TMP/x.tif" "$R"
expect_failure "empty ROI" 2 "--roi: the width and height must be at least 1, got 0x5" \
    F --filter gaussian:1 --roi 1,2,0,5 -o "$TMP/x.tif" "$R"
expect_failure "target without ROI" 2 "--target needs --roi" F --filter gaussian:1 --target 1,2 -o "$TMP/x.tif" "$R"
expect_failure "unknown out type" 2 "--out-type: unknown type 'u8' \(f32 or u16\)" \
    F --filter gaussian:1 --out-type u8 -o "$TMP/x.tif" "$R"
expect_failure "no output" 2 "filter needs -o OUT.tif or --output-dir DIR" F --filter gaussian:1 "$R"
expect_failure "two outputs" 2 "either -o or --output-dir, not both" F --filter gaussian:1 -o "$TMP/x.tif" --output-dir "$TMP" "$R"
expect_failure "no images" 2 "no images given" F --filter gaussian:1 -o "$TMP/x.tif"
expect_failure "-o is an input" 2 "the output $TMP/keep.tif is the input $TMP/keep.tif; it would be overwritten" \
    F --filter gaussian:1 -o "$TMP/keep.tif" "$R" "$TMP/keep.tif"
expect_failure "--output-dir holds an input" 2 "the output $TMP/keep.tif is the input $TMP/keep.tif" \
    F --filter gaussian:1 --output-dir "$TMP" "$TMP/keep.tif"
cmp -s "$TMP/c.tif" "$TMP/keep.tif" && pass "the input is untouched" || fail "the input was overwritten"
expect_failure "two inputs, one output file" 2 "would both be written to $TMP/dir3/reference.tif" \
    F --filter gaussian:1 --output-dir "$TMP/dir3" "$R" "$TMP/dir1/reference.tif"
expect_failure "ROI outside the image" 1 "reference.tif: the source ROI 150,10,30,20 \(x,y,w,h\) is not inside the 160x128 image" \
    F --filter gaussian:1 --roi 150,10,30,20 -o "$TMP/y.tif" "$R"
expect_failure "target outside the image" 1 "the target ROI 140,10,30,20 \(x,y,w,h\) is not inside the 160x128 image" \
    F --filter gaussian:1 --roi 0,0,30,20 --target 140,10 -o "$TMP/y.tif" "$R"
expect_failure "missing file" 1 "nope.tif: No such file or directory" F --filter gaussian:1 -o "$TMP/y.tif" "$TMP/nope.tif"
[ ! -e "$TMP/y.tif" ] && [ ! -e "$TMP/y.tif.part" ] && pass "nothing written when the first image fails" \
    || fail "files after failures: $(ls "$TMP" | grep y.tif)"
expect_failure "missing second file" 1 "nope.tif: No such file or directory" F --filter gaussian:1 -o "$TMP/z.tif" "$R" "$TMP/nope.tif"
[ ! -e "$TMP/z.tif" ] && [ "$(stats "$TMP/z.tif.part" | wc -l)" -eq 1 ] \
    && pass "a failed run leaves OUT.tif.part with the pages done" || fail "after a late failure: $(ls "$TMP" | grep z.tif)"
CLXCORR_TEST_HIDE_FP64=1 expect_failure "--double without fp64" 1 "no double precision \(cl_khr_fp64\)" \
    F --filter gaussian:1 --double -o "$TMP/w.tif" "$R"
finish
