#!/bin/sh
# Offline compiles for every vendor: each kernel file with every tuning
# variant the library can choose (tests/print-kernel-options' option sets,
# deduplicated below), compiled as a device of that vendor would build it
# (CLX_VENDOR set to the vendor, so that cl/vendor.h takes its paths):
#   AMD    clang -target amdgcn-amd-amdhsa, gfx90a (CDNA 2, wave64) and
#          gfx1100 (RDNA 3, wave32; a clang that knows it: 16 or later)
#   Intel  ocloc (Debian's intel-opencl-icd), acm-g10 (Xe-HPG, DG2) and
#          pvc (Xe-HPC, Ponte Vecchio)
# spir64 is kernels_spir.sh's. Double-precision sets are left out where the
# device has no fp64 (DG2): the library refuses --double there.
# A missing compiler skips its vendor; none at all skips the test (77).
# Under the sanitizers the test is skipped: it checks the kernels, not the
# build, and the plain run of the suite runs it.
. "$TESTS_SRCDIR/lib.sh"

if [ -n "${SANITIZER_FLAGS:-}" ]; then
    echo "SKIP: the vendor compilers check the kernels; the plain build's suite runs them"
    exit 77
fi
"$PRINT_KERNEL_OPTIONS" >"$TMP/options" || exit 99

# Size macros change constants, not code paths a vendor compiler could
# refuse; one job per combination of the other macros a kernel reads.
SIZES=" WIN_W WIN_H PAD_W PAD_H CORR_W CORR_H STORE_RX STORE_RY SEARCH_RX SEARCH_RY WINDOW_ALPHA CLX_VENDOR CLX_SUBGROUPS "
idents() {
    # The upper-case identifiers of a kernel file and the headers it includes.
    for f in "$1" $(sed -n 's/^#include "\(.*\)"/\1/p' "$KERNEL_SRCDIR/$1"); do
        grep -o '[A-Z_][A-Z0-9_]*' "$KERNEL_SRCDIR/$f"
    done | sort -u | tr '\n' ' '
}
for k in $(cut -d'|' -f1 "$TMP/options" | tr ' ' '\n' | sort -u); do
    echo "$k $(idents "$k")"
done >"$TMP/idents"
awk -v sizes="$SIZES" '
    FNR == NR { k = $1; for (i = 2; i <= NF; i++) uses[k, $i] = 1; next }
    {
        split($0, parts, "|")
        nk = split(parts[1], kernels, " ")
        for (j = 1; j <= nk; j++) {
            k = kernels[j]; key = k; opts = ""
            n = split(parts[2], w, " ")
            for (i = 1; i <= n; i++) {
                if (w[i] == "-D") {
                    split(w[i + 1], d, "=")
                    if (index(sizes, " " d[1] " ") == 0 && ((k, d[1]) in uses)) key = key " " w[i + 1]
                    if (d[1] != "CLX_VENDOR" && d[1] != "CLX_SUBGROUPS") opts = opts " -D " w[i + 1]
                    i++
                }
            }
            if (!(key in seen)) { seen[key] = 1; print k "|" opts }
        }
    }' "$TMP/idents" "$TMP/options" >"$TMP/jobs"
# The sub-group variant of the direct kernel (direct_broadcast=1), built as
# each vendor's extension gives it: AMD's cl_khr_subgroups with OpenCL C 2.0,
# Intel's cl_intel_subgroups with 1.2 (CLX_SUBGROUPS, from the device's
# reported extensions, picks it in cl/vendor.h).
grep '^correlate_direct.cl|' "$TMP/jobs" | grep -- '-D DIRECT_SOURCE=0 ' | grep -- '-D USE_DOUBLE=0 ' | head -2 \
    | sed 's/^\([^|]*\)|/\1|SUBGROUPS/; s/-D DIRECT_BROADCAST=0/-D DIRECT_BROADCAST=1/' >>"$TMP/jobs"
echo "# $(wc -l <"$TMP/jobs") distinct kernel builds of $(awk -F'|' '{ n += split($1, a, " ") } END { print n }' "$TMP/options")"

# A clang that knows gfx1100 (RDNA 3 came in LLVM 16).
amd_clang=
for c in "${CLANG:-clang}" clang-18 clang-17 clang-16; do
    if command -v "$c" >/dev/null 2>&1 && echo 'kernel void k(void) {}' | "$c" -x cl -cl-std=CL1.2 \
        -target amdgcn-amd-amdhsa -mcpu=gfx1100 -nogpulib -c -o /dev/null - 2>/dev/null; then
        amd_clang=$c
        break
    fi
done

# compile TARGET KERNEL OPTIONS: one build; prints nothing on success.
compile() {
    target=$1 kernel=$2 std=CL1.2 amd_sg= intel_sg=
    shift 2
    case ${1:-} in
    SUBGROUPS*)
        std=CL2.0 amd_sg="-D CLX_SUBGROUPS=1" intel_sg="-D CLX_SUBGROUPS=2"
        first=${1#SUBGROUPS}
        shift
        set -- $first "$@" ;;
    esac
    case $target in
    gfx*)
        # shellcheck disable=SC2086
        "$amd_clang" -x cl -cl-std=$std -target amdgcn-amd-amdhsa -mcpu="$target" -nogpulib \
            -Xclang -finclude-default-header -Werror -c -o /dev/null -I "$KERNEL_SRCDIR" -D CLX_VENDOR=2 $amd_sg \
            "$@" "$KERNEL_SRCDIR/$kernel" 2>&1 ;;
    *)
        out=$(mktemp -d "$TMP/ocloc.XXXXXX")
        ocloc compile -q -file "$KERNEL_SRCDIR/$kernel" -device "$target" -out_dir "$out" \
            -options "-cl-std=CL1.2 -I $KERNEL_SRCDIR -D CLX_VENDOR=3 $intel_sg $*" >"$out/log" 2>&1 || cat "$out/log"
        rm -rf "$out" ;;
    esac
}

targets=
[ -n "$amd_clang" ] && targets="gfx90a gfx1100" || echo "# no clang with gfx1100 (clang-16 or later): AMD skipped"
command -v ocloc >/dev/null 2>&1 && targets="$targets acm-g10 pvc" || echo "# no ocloc (intel-opencl-icd): Intel skipped"
[ -n "$targets" ] || { echo "SKIP: no vendor compiler"; exit 77; }

# One background job per target (the compilers are single-threaded), each
# writing its count and failures to $TMP/TARGET.result.
build_all() {
    target=$1 count=0 failed=0
    while IFS='|' read -r kernel options; do
        case "$target $options" in
        "acm-g10 "*"USE_DOUBLE=1"*) continue ;;   # DG2 has no fp64: the library refuses --double there
        esac
        # shellcheck disable=SC2086
        log=$(compile "$target" "$kernel" $options)
        if [ -n "$log" ]; then
            failed=$((failed + 1))
            [ $failed -le 5 ] && echo "FAIL: $target: $kernel with '$options': $(echo "$log" | grep -m3 -i 'error')"
        fi
        count=$((count + 1))
    done <"$TMP/jobs"
    echo "$count $failed"
}
for target in $targets; do
    build_all "$target" >"$TMP/$target.result" 2>&1 &
done
wait
for target in $targets; do
    grep '^FAIL' "$TMP/$target.result" | while read -r line; do echo "$line" >&2; done
    set -- $(tail -1 "$TMP/$target.result")
    if [ "${2:-1}" -eq 0 ]; then
        pass "$target: $1 kernel builds"
    else
        fail "$target: ${2:-?} of ${1:-?} builds failed"
    fi
done
finish
