#!/bin/sh
# Every kernel compiles with clang's OpenCL C front end as OpenCL C 1.2 for
# spir64, with each set of build options the library generates: a
# vendor-neutral check that no vendor-only construct slipped in.
. "$TESTS_SRCDIR/lib.sh"

if [ -z "${CLANG:-}" ] || ! "$CLANG" --version >/dev/null 2>&1; then
    echo "SKIP: no clang found at configure time (set CLANG=...)"
    exit 77
fi
"$PRINT_KERNEL_OPTIONS" >"$TMP/options" || exit 99
count=0
while IFS='|' read -r kernels options; do
    for kernel in $kernels; do
        # The options are -D NAME=VALUE words; -cl-std is clang's too.
        # shellcheck disable=SC2086
        if ! "$CLANG" -x cl -cl-std=CL1.2 --target=spir64 -Xclang -finclude-default-header \
            -Werror -c -emit-llvm -o /dev/null -I "$KERNEL_SRCDIR" $options "$KERNEL_SRCDIR/$kernel" 2>"$TMP/log"; then
            fail "$kernel with '$options': $(head -5 "$TMP/log")"
        fi
        count=$((count + 1))
    done
done <"$TMP/options"
# Every kernel file must be built by some option set.
covered=$(cut -d'|' -f1 "$TMP/options" | tr ' ' '\n' | sort -u | wc -l)
present=$(ls "$KERNEL_SRCDIR"/*.cl | wc -l)
[ "$covered" -eq "$present" ] || fail "$present kernel files but option sets cover only $covered"
pass "$count kernel builds for spir64 as OpenCL C 1.2"
finish
