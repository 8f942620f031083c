#!/bin/sh
# `make check-oclgrind`: the kernel tests run on Oclgrind, the OpenCL
# device simulator, with its checks of API use (--check-api), data races
# (--data-races) and uninitialised values (--uninitialized); any report, or
# a test that fails, fails the run. Usage: oclgrind.sh TEST-PROGRAM...
#
# The tests see CLXCORR_TEST_SIMULATOR=1 (or the caller's value: quick runs
# only the smallest of them, as .ci/run's subset does) and run their small cases on the
# FFT-free (direct) path, in both precisions: a simulated kernel runs about
# a thousand times slower than on a CPU device, and clFFT's and VkFFT's
# kernels (not ours) far slower still.
#
# Oclgrind is started as its own launcher does (its runtime preloaded,
# OCLGRIND_* set), with tests/.libs/liboclgrind_fill.so preloaded first
# (tests/oclgrind_fill.c: around two false reports of Oclgrind 21.10), and
# kernels built with -cl-opt-disable: its uninitialised-value checker stops
# on LLVM's freeze instruction, which the optimiser emits. Buffers are kept
# to the end, so the simulated device gets 2 GiB.
set -u
BUILDDIR=${BUILDDIR:-.}
rt=
for dir in /usr/lib/oclgrind /usr/local/lib/oclgrind /usr/lib/x86_64-linux-gnu/oclgrind \
    "$(dirname "$(command -v oclgrind 2>/dev/null || echo /nonexistent)")/../lib/oclgrind"; do
    [ -f "$dir/liboclgrind-rt.so" ] && { rt=$dir/liboclgrind-rt.so; break; }
done
if [ -z "$rt" ]; then
    echo "oclgrind.sh: no Oclgrind runtime (liboclgrind-rt.so): apt-get install oclgrind" >&2
    exit 77
fi
shim=$BUILDDIR/tests/.libs/liboclgrind_fill.so
[ -f "$shim" ] || { echo "oclgrind.sh: $shim is not built (make check-oclgrind builds it)" >&2; exit 99; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/clxcorr-oclgrind.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

failed=0 passed=0
for test in "$@"; do
    name=$(basename "$test")
    log=$tmp/$name.log
    start=$(date +%s)
    CLXCORR_TEST_SIMULATOR=${CLXCORR_TEST_SIMULATOR:-1} XDG_CACHE_HOME=$tmp/cache \
        OCLGRIND_CHECK_API=1 OCLGRIND_DATA_RACES=1 OCLGRIND_UNINITIALIZED=1 OCLGRIND_MAX_ERRORS=100 \
        OCLGRIND_BUILD_OPTIONS=-cl-opt-disable OCLGRIND_GLOBAL_MEM_SIZE=2147483648 OCLGRIND_LOG=$log \
        LD_PRELOAD="$shim:$rt" \
        "$test" >"$tmp/$name.out" 2>&1
    status=$?
    seconds=$(($(date +%s) - start))
    reports=$(grep -c '^[A-Z]' "$log" 2>/dev/null)
    if [ "$status" -ne 0 ] || [ "${reports:-0}" -ne 0 ]; then
        failed=$((failed + 1))
        echo "FAIL: $name under Oclgrind (${seconds} s): exit status $status, ${reports:-0} reports"
        # The reports, one of each kind and place.
        awk '/^[A-Z]/ { what = $0 } /Kernel:|At line/ { what = what " | " $0 } /^$/ && what { print what; what = "" }' \
            "$log" 2>/dev/null | sed 's/[[:space:]]\+/ /g' | sort | uniq -c | sort -rn | head -12
        tail -3 "$tmp/$name.out"
    else
        passed=$((passed + 1))
        echo "PASS: $name under Oclgrind (${seconds} s): $(tail -1 "$tmp/$name.out")"
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
