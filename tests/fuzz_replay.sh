#!/bin/sh
# The fuzz harnesses of tests/fuzz/, built without libFuzzer, on their seed
# corpora and on every input that once broke them (tests/fuzz/regressions/).
# Each input must keep the harness's promises (no crash, no sanitizer report
# in a --enable-sanitizers build, a one-line error naming the file), and
# each past finding must still give what its NAME.expect says: one extended
# regular expression per line, each matching a line the harness reports.
. "$TESTS_SRCDIR/lib.sh"

for target in image regions list patterns; do
    replay=$FUZZ_REPLAY/replay-$target
    corpus=$TESTS_SRCDIR/fuzz/corpus/$target
    if "$replay" "$corpus"/* >"$TMP/out" 2>"$TMP/err"; then
        pass "$target: $(ls "$corpus" | wc -l) seeds"
    else
        fail "$target seeds: $(tail -5 "$TMP/err")"
    fi
    for input in "$TESTS_SRCDIR/fuzz/regressions/$target"/*; do
        [ -e "$input" ] || continue
        case $input in *.expect) continue ;; esac
        name=$target/$(basename "$input")
        if [ ! -f "$input.expect" ]; then
            fail "$name: no $name.expect"
            continue
        fi
        if ! CLXCORR_FUZZ_REPORT=1 "$replay" "$input" >"$TMP/out" 2>"$TMP/err"; then
            fail "$name: $(tail -5 "$TMP/err")"
            continue
        fi
        missing=
        while IFS= read -r pattern; do
            grep -Eq -- "$pattern" "$TMP/out" || missing=$pattern
        done <"$input.expect"
        if [ -n "$missing" ]; then
            fail "$name: no line matches '$missing': $(cat "$TMP/out")"
        else
            pass "$name: $(sed -n 2p "$TMP/out")"
        fi
    done
done
finish
