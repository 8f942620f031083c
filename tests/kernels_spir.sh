#!/bin/sh
# Every kernel compiles with clang's OpenCL C front end as OpenCL C 1.2 for
# spir64, with each set of build options the library generates: a
# vendor-neutral check that no vendor-only construct slipped in. A stage of
# its own (make check-kernels), with kernels_vendors.sh, not part of make
# check.
. "$TESTS_SRCDIR/lib.sh"

if [ -z "${CLANG:-}" ] || ! "$CLANG" --version >/dev/null 2>&1; then
    echo "SKIP: no clang found at configure time (set CLANG=...)"
    exit 77
fi
if [ -n "${SANITIZER_FLAGS:-}" ]; then
    echo "SKIP: clang checks the kernels, not the build; the plain build's suite runs it"
    exit 77
fi
"$PRINT_KERNEL_OPTIONS" >"$TMP/options" || exit 99

# A macro a kernel never reads cannot change its build: each kernel is
# compiled once per distinct set of the -D values it reads (its file and
# every header it includes, transitively), which is every build the library
# can make of it.
idents() {
    files=$1 more=$1
    while [ -n "$more" ]; do
        next=
        for f in $more; do
            for h in $(sed -n 's/^#include "\(.*\)"/\1/p' "$KERNEL_SRCDIR/$f"); do
                case " $files " in *" $h "*) ;; *) files="$files $h" next="$next $h" ;; esac
            done
        done
        more=$next
    done
    for f in $files; do grep -o '[A-Z_][A-Z0-9_]*' "$KERNEL_SRCDIR/$f"; done | sort -u | tr '\n' ' '
}
for k in $(cut -d'|' -f1 "$TMP/options" | tr ' ' '\n' | sort -u); do
    echo "$k $(idents "$k")"
done >"$TMP/idents"
awk 'FNR == NR { for (i = 2; i <= NF; i++) uses[$1, $i] = 1; next }
    {
        split($0, parts, "|")
        nk = split(parts[1], kernels, " ")
        for (j = 1; j <= nk; j++) {
            k = kernels[j]; key = k
            n = split(parts[2], w, " ")
            for (i = 1; i < n; i++)
                if (w[i] == "-D") { split(w[i + 1], d, "="); if ((k, d[1]) in uses) key = key " " w[i + 1]; i++ }
            total++
            if (!(key in seen)) { seen[key] = 1; print k "|" parts[2] }
        }
    }
    END { print total >"/dev/stderr" }' "$TMP/idents" "$TMP/options" >"$TMP/jobs" 2>"$TMP/total"

# The builds dealt to one worker per core (nproc): never more compilers than
# cores. Each worker prints one line per failed build and its count last.
build_part() {
    count=0
    while IFS='|' read -r kernel options; do
        # The options are -D NAME=VALUE words; -cl-std is clang's too.
        # shellcheck disable=SC2086
        if ! "$CLANG" -x cl -cl-std=CL1.2 --target=spir64 -Xclang -finclude-default-header \
            -Werror -c -emit-llvm -o /dev/null -I "$KERNEL_SRCDIR" $options "$KERNEL_SRCDIR/$kernel" 2>"$1.log"; then
            echo "FAIL $kernel with '$options': $(head -5 "$1.log" | tr '\n' ' ')"
        fi
        count=$((count + 1))
    done <"$1"
    echo "count $count"
}
run_on_cores "$TMP/jobs" build_part
grep '^FAIL ' "$TMP/results" | head -20 | sed 's/^FAIL /FAIL: /' >&2
failed=$(grep -c '^FAIL ' "$TMP/results")
[ "$failed" -eq 0 ] || fail "$failed builds failed (the first 20 above)"
count=$(awk '$1 == "count" { n += $2 } END { print n + 0 }' "$TMP/results")
[ "$count" -eq "$(wc -l <"$TMP/jobs")" ] || fail "$count builds of $(wc -l <"$TMP/jobs") ran"
# Every kernel file must be built by some option set.
covered=$(cut -d'|' -f1 "$TMP/options" | tr ' ' '\n' | sort -u | wc -l)
present=$(ls "$KERNEL_SRCDIR"/*.cl | wc -l)
[ "$covered" -eq "$present" ] || fail "$present kernel files but option sets cover only $covered"
pass "$count distinct kernel builds of $(cat "$TMP/total") option sets for spir64 as OpenCL C 1.2"
finish
