#!/bin/sh
# The hostile-input table, tests/hostile_inputs.txt: every case's exit
# status and message; that a failing case wrote nothing into $OUT (no
# output appeared, not even FILE.part) and changed no input; and that the
# cases which are not errors write the rows they should.
. "$TESTS_SRCDIR/lib.sh"
need_device
make_small_set "$TMP/set" 2
S=$TMP/set
H=$TMP/hostile
OUT=$TMP/out
mkdir -p "$H/adir" "$OUT" "$H/ro" "$H/full"
: >"$H/empty-image.tif"
: >"$H/empty.png"
head -c 700 "$S/image_0001.tif" >"$H/cut.tif"
"$IMGTOOL" png8 "$H/whole.png" "$S/image_0001.tif" || exit 99
head -c 200 "$H/whole.png" >"$H/cut.png"
"$IMGTOOL" bighead "$H/big.tif" 100000 100000 || exit 99
"$IMGTOOL" float "$H/nan.tif" "$S/image_0001.tif" || exit 99
"$IMGTOOL" float "$H/float-ref.tif" "$S/reference.tif" clean || exit 99
"$IMGTOOL" resize "$H/small.tif" "$S/image_0002.tif" 150 128 || exit 99
mkfifo "$H/afifo" || exit 99
cp "$S/image_0001.tif" "$H/locked.tif" && chmod 000 "$H/locked.tif"
echo "8 8 0 24" >"$H/zero.txt"
echo "150 100 32 32" >"$H/outside.txt"
echo "-4 8 32 32" >"$H/negative.txt"
printf '8 8 32 32\n50 8 24 24\n' >"$H/sizes.txt"
echo "# no windows" >"$H/empty-windows.txt"
printf '8 8 32 32\n20 8 32 32\n8 20 32 32\n' >"$H/overlap.txt"
for i in $(seq 1 400); do echo "$S/image_0001.tif"; done >"$H/long.txt"
root=0
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=16k clxcorr-full "$H/full" 2>/dev/null; then
    root=1
    trap 'umount "$H/full" 2>/dev/null; umount "$H/ro" 2>/dev/null; rm -rf "$TMP"' EXIT
    mount -t tmpfs -o ro,size=16k clxcorr-ro "$H/ro" 2>/dev/null || root=0
fi
# Root reads a file of mode 000 all the same (CAP_DAC_OVERRIDE), and CI
# runs as root: there the cases named "unprivileged:" run under setpriv
# without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH (still uid 0, the owner
# of every other file the run opens), once a probe shows that it cannot
# read locked.tif that way.
unprivileged=
if [ "$(id -u)" -eq 0 ]; then
    drop_dac="setpriv --bounding-set=-dac_override,-dac_read_search --inh-caps=-dac_override,-dac_read_search"
    if command -v setpriv >/dev/null 2>&1 && $drop_dac cat "$S/reference.tif" >/dev/null 2>&1 \
        && ! $drop_dac cat "$H/locked.tif" >/dev/null 2>&1; then
        unprivileged=$drop_dac
        echo "# root: the unprivileged cases run under $drop_dac"
    else
        unprivileged=none
    fi
fi

inputs_sum() { find "$S" "$H" -path "$H/full" -prune -o -path "$H/ro" -prune -o -type f -print | sort | xargs cat | cksum; }
before=$(inputs_sum)
cases=0
while IFS='|' read -r name want pattern args; do
    case $name in ''|'#'*) continue ;; esac
    name=$(echo "$name" | sed 's/ *$//')
    want=$(echo "$want" | tr -d ' ')
    pattern=$(echo "$pattern" | sed 's/^ *//; s/ *$//')
    runner=
    case $name in
    root:*) [ $root -eq 1 ] || { skip_check "$name" "needs root and mount -t tmpfs"; continue; } ;;
    unprivileged:*)
        [ "$unprivileged" != none ] \
            || { skip_check "$name" "root reads any file, and setpriv could not drop CAP_DAC_OVERRIDE here"; continue; }
        runner=$unprivileged ;;
    esac
    cases=$((cases + 1))
    eval "set -- $args"
    $runner "$CLXCORR" offsets --mode seed "$@" >"$TMP/stdout" 2>"$TMP/stderr"
    status=$?
    if [ "$status" -ne "$want" ]; then
        fail "$name: exit status $status, expected $want: $(head -c 300 "$TMP/stderr")"
    elif [ "$pattern" != - ] && ! grep -Eq -- "$pattern" "$TMP/stderr"; then
        fail "$name: stderr does not match '$pattern': $(head -c 300 "$TMP/stderr")"
    elif [ "$want" -ne 0 ] && [ "$(grep -c 'error:' "$TMP/stderr")" -ne 1 ]; then
        fail "$name: expected one error line: $(cat "$TMP/stderr")"
    elif [ "$want" -ne 0 ] && [ -n "$(ls -A "$OUT")" ]; then
        fail "$name: an output appeared: $(ls -A "$OUT")"
    elif [ "$want" -ne 0 ] && [ -n "$(ls -A "$H/full" | grep -Ev '^r\.csv\.(part|resume)$')" ]; then
        fail "$name: left on the full disk: $(ls -A "$H/full")"
    elif [ "$want" -ne 0 ] && [ "$(grep -vc '^image,region' "$TMP/stdout")" -ne 0 ]; then
        fail "$name: rows on standard output after a failure: $(head -2 "$TMP/stdout")"
    elif [ "$want" -eq 0 ] && [ "$(grep -c ',' "$TMP/stdout")" -lt 2 ]; then
        fail "$name: no rows: $(cat "$TMP/stderr")"
    elif [ "$(inputs_sum)" != "$before" ]; then
        fail "$name: an input changed"
    else
        pass "$name: exit $status$( [ "$want" -ne 0 ] && echo ": $(head -c 200 "$TMP/stderr")")"
    fi
    rm -rf "${OUT:?}"/* "$H/full"/* 2>/dev/null
done <"$TESTS_SRCDIR/hostile_inputs.txt"

# The full disk left no FILE (only the complete rows in FILE.part, which
# the case above removed): checked on its own, row by row (each whole, of
# the header's fields, whole images only; no FILE.resume.part beside it),
# and resumed once room is made, to the bytes of an uninterrupted run.
if [ $root -eq 1 ]; then
    "$CLXCORR" offsets --mode seed --regions "$S/regions.txt" --list "$H/long.txt" -o "$H/full/r.csv" \
        "$S/reference.tif" 2>/dev/null
    if [ -e "$H/full/r.csv" ] || [ ! -e "$H/full/r.csv.part" ]; then
        fail "disk full: $(ls "$H/full")"
    elif [ -e "$H/full/r.csv.resume.part" ]; then
        fail "disk full: an empty or cut r.csv.resume.part was left: $(ls -l "$H/full")"
    elif [ "$(tail -c 1 "$H/full/r.csv.part" | od -An -c | tr -d ' ')" != '\n' ] ||
         awk -F, 'NR == 1 { n = NF } NF != n { bad = 1 } END { exit !bad }' "$H/full/r.csv.part"; then
        fail "disk full: r.csv.part ends in a cut row: $(tail -c 80 "$H/full/r.csv.part")"
    elif [ $(( ($(wc -l <"$H/full/r.csv.part") - 1) % 6 )) -ne 0 ]; then
        fail "disk full: r.csv.part holds part of an image's 6 rows: $(wc -l <"$H/full/r.csv.part") lines"
    else
        rows=$(wc -l <"$H/full/r.csv.part")
        mv "$H/full/r.csv.part" "$TMP/r.csv.part" && mv "$H/full/r.csv.resume" "$TMP/r.csv.resume"
        "$CLXCORR" offsets --mode seed --regions "$S/regions.txt" --list "$H/long.txt" -o "$TMP/whole.csv" \
            "$S/reference.tif" 2>"$TMP/err" || fail "disk full: the uninterrupted run failed: $(cat "$TMP/err")"
        "$CLXCORR" offsets --mode seed --regions "$S/regions.txt" --list "$H/long.txt" -o "$TMP/r.csv" --resume \
            "$S/reference.tif" 2>"$TMP/err" && [ "$(wc -l <"$TMP/r.csv")" -eq 2401 ] && cmp -s "$TMP/r.csv" "$TMP/whole.csv" \
            && pass "disk full: no r.csv, $rows lines of whole images in r.csv.part, no r.csv.resume.part," \
                    "resumed elsewhere to the uninterrupted run's 2401 lines" \
            || fail "disk full, resumed: $(cat "$TMP/err"; cmp "$TMP/r.csv" "$TMP/whole.csv")"
    fi
fi
[ "$cases" -ge 30 ] && pass "$cases cases run" || fail "only $cases cases run"
finish
