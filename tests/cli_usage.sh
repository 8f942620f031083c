#!/bin/sh
# The command line: help for the command, version,
# and clear usage errors (exit status 2) for what cannot run, an empty
# file name among them.
. "$TESTS_SRCDIR/lib.sh"

"$CLXCORR" --help >"$TMP/help" 2>&1 && grep -q "offsets" "$TMP/help" && grep -q "devices" "$TMP/help" \
    && pass "--help lists the commands" || fail "--help: $(cat "$TMP/help")"
"$CLXCORR" --version >"$TMP/version" 2>&1 && grep -q "^clxcorr [0-9]" "$TMP/version" && grep -q "clfft" "$TMP/version" \
    && pass "--version: $(tr '\n' ' ' <"$TMP/version")" || fail "--version: $(cat "$TMP/version")"
# A build without HDF5 says so, on a line of its own; one with it has no such line.
if grep -q '^features:.* hdf5' "$TMP/version"; then
    ! grep -q '^without:' "$TMP/version" && pass "--version: built with HDF5, nothing said missing" \
        || fail "--version: hdf5 both present and missing: $(cat "$TMP/version")"
else
    grep -q '^without: hdf5 (EBSD HDF5 containers and --format h5 unavailable; install libhdf5-dev' "$TMP/version" \
        && pass "--version: says HDF5 is missing and how to get it" || fail "--version: HDF5 missing unsaid: $(cat "$TMP/version")"
fi
# Every command's --help: tests/cli_help.sh.
"$CLXCORR" offsets --help | grep -q "position of a feature in the image minus" \
    && pass "offsets --help states the sign convention" || fail "offsets --help lacks the sign convention"

expect_failure "no command" 2 "no command given" "$CLXCORR"
expect_failure "unknown command" 2 "unknown command 'frobnicate'" "$CLXCORR" frobnicate
expect_failure "option before the command" 2 "options go after the command" "$CLXCORR" --device cpu offsets
expect_failure "no reference" 2 "no reference image given" "$CLXCORR" offsets --grid 2x2 --window 8x8
expect_failure "no images" 2 "no images given" "$CLXCORR" offsets --grid 2x2 --window 8x8 ref.tif
expect_failure "no windows" 2 "no windows given" "$CLXCORR" offsets ref.tif a.tif
expect_failure "both window kinds" 2 "one of --regions, --grid and --grid-step" "$CLXCORR" offsets --regions r.txt --grid 2x2 --window 8x8 ref.tif a.tif
expect_failure "grid without window" 2 "--grid needs --window" "$CLXCORR" offsets --grid 2x2 ref.tif a.tif
expect_failure "bad grid" 2 "--grid: expected AxB" "$CLXCORR" offsets --grid 22 --window 8x8 ref.tif a.tif
expect_failure "bad batch" 2 "--batch: 'many' is not an integer" "$CLXCORR" offsets --batch many --grid 2x2 --window 8x8 ref.tif a.tif
expect_failure "fit size too small" 2 "--fit-size: 1 is out of range" "$CLXCORR" offsets --fit-size 1 --grid 2x2 --window 8x8 ref.tif a.tif
expect_failure "unknown mode" 2 "unknown mode 'fancy'" "$CLXCORR" offsets --mode fancy --grid 2x2 --window 8x8 ref.tif a.tif
expect_failure "unknown interpolation" 2 "--interp: unknown interpolation 'sinc'" "$CLXCORR" offsets --interp sinc --grid 2x2 --window 8x8 ref.tif a.tif
expect_failure "unknown option" 2 "offsets: unknown option '--frobnicate'" "$CLXCORR" offsets --frobnicate ref.tif a.tif
expect_failure "missing value" 2 "offsets: option '--batch' needs a value" "$CLXCORR" offsets ref.tif --batch
expect_failure "devices with an argument" 2 "devices takes no arguments" "$CLXCORR" devices extra

# An empty file or directory name, to every option of every command whose
# --help gives it a FILE, DIR or PREFIX, long and short: a usage error
# naming the option as it was given, not a library function's message.
checked=0
for command in offsets strain correlate filter tune bench plot merge; do
    "$CLXCORR" $command --help | grep -oE '^ +(-[a-z], )?--[a-z-]+ (FILE|DIR|PREFIX)' >"$TMP/paths"
    while read -r first second third; do
        case $first in
        --*) long=$first short= what=$second ;;
        *) long=$second short=${first%,} what=$third ;;
        esac
        [ "$what" = DIR ] && kind="directory name" || kind="file name"
        expect_failure "$command $long ''" 2 "^clxcorr: error: $long: empty $kind\$" "$CLXCORR" $command "$long" "" a b
        expect_failure "$command $long=" 2 "^clxcorr: error: $long: empty $kind\$" "$CLXCORR" $command "$long=" a b
        checked=$((checked + 2))
        if [ -n "$short" ]; then
            expect_failure "$command $short ''" 2 "^clxcorr: error: $short: empty $kind\$" "$CLXCORR" $command "$short" "" a b
            checked=$((checked + 1))
        fi
    done <"$TMP/paths"
done
[ $checked -ge 50 ] && pass "an empty name to $checked path options" || fail "only $checked path options found in --help"
finish
