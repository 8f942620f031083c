#!/bin/sh
# offsets --meta FILE.json: the run's record names the version, the command,
# the inputs, the options in effect, the device and its method, and the
# images done; a failed run's record says "failed" and why. Valid JSON
# (checked with python3 where there is one).
. "$TESTS_SRCDIR/lib.sh"
need_device
make_small_set "$TMP/set" 4
S=$TMP/set
"$CLXCORR" offsets --mode seed --method fft --regions "$S/regions.txt" --meta "$TMP/m.json" -o "$TMP/out.csv" \
    "$S/reference.tif" "$S"/image_*.tif || fail "offsets --meta"
M=$TMP/m.json
has() {
    grep -q -- "$1" "$M" && pass "$2" || fail "$2: no '$1' in $(cat "$M")"
}
has "\"clxcorr\": \"$("$CLXCORR" --version | sed -n 's/^clxcorr //p')\"" "the version"
has '"command": \["clxcorr", "offsets", "--mode", "seed"' "the command line"
has '"status": "complete"' "complete"
has '"error": null' "no error"
has '"images": 4,' "4 images"
has '"images_done": 4,' "4 done"
has '"windows": 6,' "6 windows"
has '"mode": "seed"' "the mode"
has '"estimator": "lsq"' "the estimator in effect"
has '"fit_size": 5' "the fit size in effect"
has '"method": "fft"' "the method used"
has "\"name\": \"$("$CLXCORR" devices | sed -n 's/^[0-9]*:[0-9]*  *//p' | head -1)\"" "the device name"
has '"driver": "' "the driver"
has '"tuning": "' "the tuning values"
has '"total": [0-9]' "the timings"
if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$M" && pass "valid JSON" || fail "invalid JSON"
else
    skip_check "valid JSON (json.load)" "no python3"
fi

# A failed run: the record says so, and why.
"$IMGTOOL" resize "$TMP/small.tif" "$S/image_0003.tif" 150 128 || exit 99
"$CLXCORR" offsets --mode seed --regions "$S/regions.txt" --meta "$M" -o "$TMP/bad.csv" "$S/reference.tif" \
    "$S/image_0001.tif" "$S/image_0002.tif" "$TMP/small.tif" "$S/image_0004.tif" 2>/dev/null
[ $? -eq 1 ] && pass "the failed run exits 1" || fail "the failed run's exit status"
has '"status": "failed"' "failed"
has '"error": ".*small.tif is 150x128' "the error"
has '"images_done": 2,' "2 images done"
finish
