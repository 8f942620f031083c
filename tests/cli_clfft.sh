#!/bin/sh
# The clFFT backend, which libclxcorr opens at run time (issue #35;
# src/ops/fft_clfft.c): --fft clfft gives the host reference's offsets, a
# run on another FFT library never opens clFFT, and a clFFT that cannot be
# loaded is one error line naming the library and why. CLXCORR_CLFFT_LIBRARY
# replaces the library's soname (a missing file, a library without clFFT's
# functions).
. "$TESTS_SRCDIR/lib.sh"
need_device
make_small_set "$TMP/set" 3
S=$TMP/set
images="$S/reference.tif $S/image_0001.tif $S/image_0002.tif $S/image_0003.tif"

# shellcheck disable=SC2086
{
    "$CLXCORR_REF" --regions "$S/regions.txt" $images >"$TMP/ref.csv" &&
    "$CLXCORR" offsets --mode seed --method fft --fft clfft --regions "$S/regions.txt" $images >"$TMP/clfft.csv"
} || fail "--fft clfft: $("$CLXCORR" offsets --mode seed --method fft --fft clfft --regions "$S/regions.txt" $images 2>&1 >/dev/null | tail -1)"
compare_csv "--fft clfft vs host reference" "$TMP/clfft.csv" "$TMP/ref.csv" 1e-3

# shellcheck disable=SC2086
CLXCORR_CLFFT_LIBRARY=$TMP/none/libclFFT.so.2 "$CLXCORR" offsets --mode seed --method fft --fft cpu \
    --regions "$S/regions.txt" $images >"$TMP/cpu.csv" 2>"$TMP/cpu.err" \
    && pass "--fft cpu runs without clFFT" || fail "--fft cpu without clFFT: $(cat "$TMP/cpu.err")"

# shellcheck disable=SC2086
CLXCORR_CLFFT_LIBRARY=$TMP/none/libclFFT.so.2 expect_failure "clFFT missing" 1 \
    "^clxcorr: error: fft=clfft: cannot load $TMP/none/libclFFT.so.2: .*No such file" \
    "$CLXCORR" offsets --mode seed --method fft --fft clfft --regions "$S/regions.txt" $images
# shellcheck disable=SC2086
CLXCORR_CLFFT_LIBRARY=libm.so.6 expect_failure "a library without clFFT's functions" 1 \
    "^clxcorr: error: fft=clfft: cannot load libm.so.6: .*undefined symbol: clfft" \
    "$CLXCORR" offsets --mode seed --method fft --fft clfft --regions "$S/regions.txt" $images
finish
