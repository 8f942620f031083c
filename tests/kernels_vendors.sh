#!/bin/sh
# Offline compiles for every vendor: each kernel file with every tuning
# variant the library can choose (tests/print-kernel-options' option sets,
# deduplicated below), compiled as a device of that vendor would build it
# (CLX_VENDOR set to the vendor, so that cl/vendor.h takes its paths):
#   AMD    clang -target amdgcn-amd-amdhsa, gfx90a (CDNA 2, wave64) and
#          gfx1100 (RDNA 3, wave32; a clang that knows it: 16 or later)
#   Intel  ocloc (Debian's intel-opencl-icd), acm-g10 (Xe-HPG, DG2) and
#          pvc (Xe-HPC, Ponte Vecchio)
# spir64 is kernels_spir.sh's, which builds every option set. Here each
# kernel is built with a covering subset: every value of every macro it reads
# at least once (sizes aside), which is where a vendor's compiler sees
# another code path; the Intel devices share one ocloc call per build.
# Double-precision sets are left out where the device has no fp64 (DG2): the
# library refuses --double there. The builds are dealt to one worker per
# core (nproc), so the test never runs more compilers than cores; it is a
# stage of its own (make check-kernels), not part of make check.
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
# The covering subset: a build is kept when it brings a value of a macro
# (other than the sizes) that no earlier build of its kernel had.
awk -F'|' -v sizes="$SIZES" '{
        n = split($2, w, " "); new = !($1 in any); any[$1] = 1
        for (i = 1; i <= n; i++)
            if (w[i] == "-D") {
                i++; split(w[i], d, "=")
                if (index(sizes, " " d[1] " ") == 0 && !(($1, w[i]) in seen)) { seen[$1, w[i]] = 1; new = 1 }
            }
        if (new || $2 ~ /^SUBGROUPS/) print
    }' "$TMP/jobs" >"$TMP/covering"
echo "# $(wc -l <"$TMP/covering") builds cover the $(wc -l <"$TMP/jobs") distinct ones of" \
    "$(awk -F'|' '{ n += split($1, a, " ") } END { print n }' "$TMP/options") option sets"

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
        # One call for the Intel devices (acm-g10,pvc), fewer where fp64 is needed.
        out=$(mktemp -d "$TMP/ocloc.XXXXXX")
        ocloc compile -q -file "$KERNEL_SRCDIR/$kernel" -device "$target" -out_dir "$out" \
            -options "-cl-std=CL1.2 -I $KERNEL_SRCDIR -D CLX_VENDOR=3 $intel_sg $*" >"$out/log" 2>&1 || cat "$out/log"
        rm -rf "$out" ;;
    esac
}

targets=
[ -n "$amd_clang" ] && targets="gfx90a gfx1100" || echo "# no clang with gfx1100 (clang-16 or later): AMD skipped"
command -v ocloc >/dev/null 2>&1 && targets="$targets acm-g10,pvc" || echo "# no ocloc (intel-opencl-icd): Intel skipped"
[ -n "$targets" ] || { echo "SKIP: no vendor compiler"; exit 77; }

# build_part JOBS: every target's build of each job in the file JOBS; prints
# "TARGET ok|FAIL [message]" per build.
build_part() {
    while IFS='|' read -r kernel options; do
        for target in $targets; do
            case "$target $options" in
            # DG2 has no fp64: the library refuses --double there.
            "acm-g10,pvc "*"USE_DOUBLE=1"*) target=pvc ;;
            esac
            # shellcheck disable=SC2086
            log=$(compile "$target" "$kernel" $options)
            if [ -z "$log" ]; then
                echo "$target ok"
            else
                echo "$target FAIL $kernel with '$options': $(echo "$log" | grep -m3 -i 'error' | tr '\n' ' ')"
            fi
        done
    done <"$1"
}
run_on_cores "$TMP/covering" build_part
grep ' FAIL ' "$TMP/results" | head -10 | while read -r line; do echo "FAIL: $line" >&2; done
# One line per device (or device pair), as the builds went.
for label in $(cut -d' ' -f1 "$TMP/results" | sort -u); do
    ok=$(grep -c "^$label ok" "$TMP/results")
    failed=$(grep -c "^$label FAIL" "$TMP/results")
    if [ "$failed" -eq 0 ]; then
        pass "$label: $ok kernel builds"
    else
        fail "$label: $failed of $((ok + failed)) builds failed"
    fi
done
[ -s "$TMP/results" ] || fail "no build ran"
finish
