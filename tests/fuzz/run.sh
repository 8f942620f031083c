#!/bin/sh
# tests/fuzz/run.sh - runs the libFuzzer harnesses one after the other, each
# for a fixed time, and reports what they found (`make fuzz` calls it).
#
#   run.sh SECONDS FUZZ_SRCDIR OUTDIR "LIBFUZZER OPTIONS" TARGET...
#
# TARGET is a harness name (image, regions, list): OUTDIR/fuzz-TARGET runs
# on a working corpus OUTDIR/work/TARGET (kept between runs, so each run goes
# on from the last) seeded from FUZZ_SRCDIR/corpus/TARGET, which it never
# writes. Inputs that break the harness go to OUTDIR/findings/TARGET/. Each
# run appends its numbers to OUTDIR/runs.txt. Exit status 1 when
# anything was found.
set -u

if [ $# -lt 5 ]; then
    echo "usage: run.sh SECONDS FUZZ_SRCDIR OUTDIR OPTIONS TARGET..." >&2
    exit 2
fi
seconds=$1 srcdir=$2 out=$3 options=$4
shift 4
case $seconds in
    ''|*[!0-9]*) echo "run.sh: FUZZ_SECONDS must be a whole number of seconds, not '$seconds'" >&2; exit 2 ;;
esac

# Absolute paths: fuzz_list changes directory.
srcdir=$(cd "$srcdir" && pwd) || exit 2
mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 2

# UBSan stops at the first finding not in third-party code; ASan's leak check runs at exit.
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:suppressions=$srcdir/../sanitizer/ubsan.supp
ASAN_OPTIONS=detect_leaks=1
export UBSAN_OPTIONS ASAN_OPTIONS

status=0
for target in "$@"; do
    fuzzer=$out/fuzz-$target
    work=$out/work/$target
    findings=$out/findings/$target
    log=$out/fuzz-$target.log
    if [ ! -x "$fuzzer" ]; then
        echo "run.sh: $fuzzer is not built" >&2
        exit 2
    fi
    mkdir -p "$work" "$findings"
    dict=
    [ -f "$srcdir/$target.dict" ] && dict=-dict=$srcdir/$target.dict
    before=$(ls "$findings" | grep -vc '^slow-unit-')
    echo "fuzz $target: $seconds s (log: $log)"
    start=$(date +%s)
    # One process: -jobs/-workers stay at their default of 1.
    # shellcheck disable=SC2086
    # Slow inputs (over 30 s, under ASan at -O1) are kept and listed, not counted as findings.
    "$fuzzer" -max_total_time="$seconds" -timeout=120 -report_slow_units=30 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
        -print_final_stats=1 -artifact_prefix="$findings/" $dict $options \
        "$work" "$srcdir/corpus/$target" >"$log" 2>&1
    rc=$?
    elapsed=$(($(date +%s) - start))
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    corpus=$(ls "$work" | wc -l)
    new=$(($(ls "$findings" | grep -vc '^slow-unit-') - before))
    slow=$(ls "$findings" | grep -c '^slow-unit-')
    line="$(date -u +%Y-%m-%dT%H:%MZ) $target: ${elapsed} s, ${runs:-?} runs (${speed:-?}/s), corpus $corpus, findings $new, exit $rc"
    [ "$slow" -eq 0 ] || line="$line; slow inputs kept: $slow"
    echo "$line" >>"$out/runs.txt"
    echo "fuzz $line"
    if [ "$rc" -ne 0 ] || [ "$new" -ne 0 ]; then
        status=1
        echo "FINDING in $target (exit status $rc); the fuzzer's report:"
        grep -E '^(==[0-9]+==ERROR|SUMMARY|FUZZ FAILURE)|runtime error' "$log" | head -5
        # The frames in the code under test, not in the sanitizers or libFuzzer.
        grep -E '^    #[0-9]+ .* in .* /[^ ]*/(src|tests)/[^ ]*\.[ch]:[0-9]' "$log" | head -8
        for f in $(ls -t "$findings" | grep -v '^slow-unit-' | head -"$((new > 0 ? new : 1))"); do
            echo "  input: $findings/$f  (reproduce: $fuzzer $findings/$f)"
        done
        echo "  Fix it, then keep the input as tests/fuzz/regressions/$target/NAME with NAME.expect."
    fi
done
exit $status
