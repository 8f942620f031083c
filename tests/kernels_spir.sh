#!/bin/sh
# Every kernel compiles with clang's OpenCL C front end as OpenCL C 1.2 for
# spir64, with each set of build options the library generates: a
# vendor-neutral check that no vendor-only construct slipped in.
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

count=0
while IFS='|' read -r kernel options; do
    # The options are -D NAME=VALUE words; -cl-std is clang's too.
    # shellcheck disable=SC2086
    if ! "$CLANG" -x cl -cl-std=CL1.2 --target=spir64 -Xclang -finclude-default-header \
        -Werror -c -emit-llvm -o /dev/null -I "$KERNEL_SRCDIR" $options "$KERNEL_SRCDIR/$kernel" 2>"$TMP/log"; then
        fail "$kernel with '$options': $(head -5 "$TMP/log")"
    fi
    count=$((count + 1))
done <"$TMP/jobs"
# Every kernel file must be built by some option set.
covered=$(cut -d'|' -f1 "$TMP/options" | tr ' ' '\n' | sort -u | wc -l)
present=$(ls "$KERNEL_SRCDIR"/*.cl | wc -l)
[ "$covered" -eq "$present" ] || fail "$present kernel files but option sets cover only $covered"
pass "$count distinct kernel builds of $(cat "$TMP/total") option sets for spir64 as OpenCL C 1.2"
finish
