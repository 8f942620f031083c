#!/bin/sh
# clxcorr tune: it stores one entry per device, driver and workload class,
# tune --show lists it, the next offsets run of that class uses it without
# any option (--explain says so, a stored batch is obeyed) and gives the
# offsets the shipped defaults give, to float rounding; --param overrides
# each stored value it names; --fft auto measures both FFT libraries.
. "$TESTS_SRCDIR/lib.sh"
need_device
make_small_set "$TMP/set" 4
S=$TMP/set
# A cache of our own (PoCL keeps its compiled kernels where it had them).
export POCL_CACHE_DIR="${POCL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pocl}"
export XDG_CACHE_HOME="$TMP/cache"
T=$XDG_CACHE_HOME/clxcorr/tuning.tsv
offsets() {
    "$CLXCORR" offsets --mode seed --regions "$S/regions.txt" "$@" "$S/reference.tif" "$S"/image_*.tif
}

"$CLXCORR" tune --show >"$TMP/show0" 2>&1 && grep -q "nothing tuned yet" "$TMP/show0" \
    && pass "tune --show before any tune" || fail "tune --show before any tune: $(cat "$TMP/show0")"
XDG_CACHE_HOME="$TMP/untuned" offsets >"$TMP/untuned.csv" || fail "offsets with the shipped defaults"

"$CLXCORR" tune --mode seed --quick --seconds 0.05 --regions "$S/regions.txt" "$S/reference.tif" "$S"/image_*.tif \
    >"$TMP/tune.out" 2>"$TMP/tune.err"
status=$?
if [ "$status" -ne 0 ]; then
    fail "tune: exit status $status: $(tail -3 "$TMP/tune.err")"
elif ! grep -q "seed 32x32 float u16" "$TMP/tune.out" || ! grep -q "stored in the tuning file" "$TMP/tune.out"; then
    fail "tune: no stored result for the seed 32x32 class: $(cat "$TMP/tune.out")"
elif ! grep -q "candidates tried" "$TMP/tune.err" || ! grep -q "reference:" "$TMP/tune.err"; then
    fail "tune: no search reported: $(tail -3 "$TMP/tune.err")"
else
    pass "tune stores a result"
fi
[ "$(grep -vc '^#' "$T")" -eq 1 ] && pass "one entry in tuning.tsv" || fail "tuning.tsv: $(cat "$T")"
"$CLXCORR" tune --show >"$TMP/show1" && grep -q "seed 32x32 float u16" "$TMP/show1" \
    && pass "tune --show lists it" || fail "tune --show: $(cat "$TMP/show1")"

offsets --explain >"$TMP/tuned.csv" 2>"$TMP/explain" || fail "offsets after tune"
grep -q "parameters: tuned on" "$TMP/explain" && pass "offsets uses the tuning without a flag" \
    || fail "offsets --explain: $(cat "$TMP/explain")"
# Same offsets as the shipped defaults, to float rounding (doc/tuning.md:
# every candidate is checked against the defaults; the variants differ in
# the order of float sums only). The tune's own gate is 0.01 px; what a
# tuned run may change is far less: measured on PoCL over every FFT
# library, fft_pack, argmax form, vector and padding form and batch, 1e-6
# px (the CSV's last digit), and 3e-6 px where --method auto picked the
# direct path in one cache and the FFT in the other. Bound: 1e-5 px, and
# the peak within 3e-6 relative (7e-7 measured).
paste -d, "$TMP/untuned.csv" "$TMP/tuned.csv" | awk -F, 'NR > 1 {
        d = $5 - $13; if (d < 0) d = -d; e = $6 - $14; if (e < 0) e = -e; if (e > d) d = e; if (d > worst) worst = d
        p = ($7 - $15) / $7; if (p < 0) p = -p; if (p > pworst) pworst = p
        if (d > 1e-5 || p > 3e-6 || $1 != $9 || $2 != $10 || $8 != $16) bad++ }
        END { printf "%.3g px, peak %.3g relative\n", worst, pworst; exit bad > 0 || NR != 25 }' >"$TMP/agree" \
    && pass "tuned offsets agree with the defaults' within 1e-5 px: $(cat "$TMP/agree")" \
    || fail "tuned offsets differ from the defaults': $(cat "$TMP/agree")"

# A stored batch is obeyed; --batch overrides it.
awk -F'\t' 'BEGIN { OFS = "\t" } /^#/ { print; next } { $5 = 2; print }' "$T" >"$T.new" && mv "$T.new" "$T"
offsets -v 2>&1 >/dev/null | grep -q "batches of 2 images" && pass "the stored batch is used" \
    || fail "stored batch 2 not used"
offsets -v --batch 3 2>&1 >/dev/null | grep -q "batches of 3 images" && pass "--batch overrides the stored one" \
    || fail "--batch 3 not used"

# A stored parameter the device cannot take is reported, not ignored.
awk -F'\t' 'BEGIN { OFS = "\t" } /^#/ { print; next } { $4 = "prep_tx=4096,prep_ty=64"; print }' "$T" >"$T.new" \
    && mv "$T.new" "$T"
expect_failure "bad stored parameter" 1 "prep_tx x prep_ty.*tuned on.*clxcorr tune again" offsets
# --param overrides each stored value it names (--explain gives each
# value's origin), not only the first; the run then gives the defaults'
# rows, byte for byte (the same parameters).
offsets --param prep_tx=32,prep_ty=8 --explain >"$TMP/param.csv" 2>"$TMP/param.err"
status=$?
if [ "$status" -ne 0 ]; then
    fail "--param prep_tx=32,prep_ty=8 did not override the stored value: exit $status: $(cat "$TMP/param.err")"
elif ! grep -q "^clxcorr:   prep_tx=32 (--param)" "$TMP/param.err" || ! grep -q "^clxcorr:   prep_ty=8 (--param)" "$TMP/param.err"; then
    fail "--param prep_tx=32,prep_ty=8: --explain does not give both as --param's: $(grep 'prep_t[xy]=' "$TMP/param.err")"
elif ! cmp -s "$TMP/param.csv" "$TMP/untuned.csv"; then
    fail "--param prep_tx=32,prep_ty=8: rows differ from the shipped defaults'"
else
    pass "--param overrides both stored values: $(grep 'prep_t[xy]=' "$TMP/param.err" | tr -s ' ' | tr '\n' ';')"
fi

# --fft auto times both libraries where both are built in.
if "$CLXCORR" --version | grep -q vkfft; then
    XDG_CACHE_HOME="$TMP/untuned" offsets --fft auto --method fft --explain 2>"$TMP/auto" >"$TMP/auto.csv" && grep -q "fft auto chose" "$TMP/auto" \
        && pass "--fft auto measures and says so" || fail "--fft auto: $(cat "$TMP/auto")"
fi
expect_failure "unknown workload" 2 "unknown workload" "$CLXCORR" tune --workload nope
finish
