#!/bin/sh
# The README's Python install, as written, in a fresh copy of the tree's
# tracked files (a clean clone: no configure, nothing built): its block
# (the ```sh block with `pip install ./python`) run from the copy's root with
# Debian's /usr/bin/python3 first in PATH and HOME in the test's directory,
# so that its `python3 -m venv --system-site-packages ~/.venvs/clxcorr` is
# a fresh environment with Debian's numpy. setup.py builds the library in
# the copy (python/build/clxcorr-lib) and puts it and the kernels into the
# package. Then the same block with the README's offline form, `pip install
# --no-build-isolation ./python` (the environment's setuptools and wheel),
# in a second fresh environment. Then the copy is moved away, and each
# environment's clxcorr runs offsets on a sample set (clxcorr-samples
# --count 1), compared with `clxcorr offsets` on it: the installed package
# needs neither the clone nor LD_LIBRARY_PATH.
#
# About 1.5 to 2.5 minutes on 2 cores (the library's build): not part of `make
# check`; `make check-python-install` runs it, and so does .ci/run.
# The block's isolated build needs PyPI (setuptools, wheel): without a
# network that check is a counted SKIP, saying so. Skipped (77) outside a
# git checkout (the tracked files are the clean clone), without Debian's
# python3 with venv and numpy, without an OpenCL device, and in a sanitizer
# build (it runs once, in the plain build).
. "$TESTS_SRCDIR/lib.sh"

SRCDIR=$(cd "$TESTS_SRCDIR/.." && pwd)
skip() {
    echo "SKIP: the README's Python install: $*"
    exit 77
}
[ -z "${SANITIZER_FLAGS:-}" ] || skip "it runs in the plain build (this one has sanitizers)"
git -C "$SRCDIR" rev-parse --is-inside-work-tree >/dev/null 2>&1 || skip "$SRCDIR is not a git checkout"
[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3 (Debian: python3)"
/usr/bin/python3 -c 'import venv, ensurepip, numpy' 2>/dev/null \
    || skip "/usr/bin/python3 lacks venv, ensurepip or numpy (Debian: python3-venv python3-numpy)"
need_device

# The README's block, as the page has it.
mkdir "$TMP/blocks" || exit 99
awk -v out="$TMP/blocks" -v page=README.md -f "$TESTS_SRCDIR/doc_blocks.awk" "$SRCDIR/README.md" >"$TMP/blocks.list" \
    || { fail "README.md's blocks: $(cat "$TMP/blocks.list")"; finish; }
block=$(grep -l '^pip install \./python$' "$TMP"/blocks/*.sh 2>/dev/null | head -1)
if [ -z "$block" ]; then
    fail "README.md has no \`\`\`sh block with the line \`pip install ./python\`"
    finish
fi
pass "README.md's install block: $(tr '\n' ';' <"$block")"

# A clean clone: the tracked files as they are in this checkout (uncommitted
# edits included, as the rest of the suite tests them).
clone=$TMP/clone
mkdir "$clone" || exit 99
(cd "$SRCDIR" && git ls-files -z | tar --null --ignore-failed-read -T - -cf -) 2>/dev/null | tar -xf - -C "$clone" \
    || exit 99
[ ! -e "$clone/configure" ] && [ -f "$clone/python/setup.py" ] || exit 99

# The user's caches stay theirs: pip's downloads, compiled kernels.
PIP_CACHE_DIR=${PIP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pip}
XDG_CACHE_HOME=${XDG_CACHE_HOME:-$HOME/.cache}
export PIP_CACHE_DIR XDG_CACHE_HOME

# run_block NAME HOME BLOCK: runs BLOCK from the clone's root, HOME=HOME,
# Debian's python3 first; the output in $TMP/NAME.log.
run_block() {
    start=$(date +%s)
    (cd "$clone" && unset MAKEFLAGS MFLAGS MAKELEVEL && HOME=$2 PATH="/usr/bin:$PATH" PIP_NO_INPUT=1 \
        PIP_DISABLE_PIP_VERSION_CHECK=1 bash -e -o pipefail "$3") >"$TMP/$1.log" 2>&1
    status=$?
    seconds=$(($(date +%s) - start))
    return $status
}

installed=""
mkdir "$TMP/home" || exit 99
if run_block isolated "$TMP/home" "$block"; then
    pass "the README's block (pip install ./python, build isolation): $seconds s"
    installed="$TMP/home"
elif grep -Eq 'NewConnectionError|Temporary failure in name resolution|Network is unreachable|No matching distribution found for (setuptools|wheel)' \
    "$TMP/isolated.log"; then
    skip_check "pip install ./python (build isolation)" \
        "pip cannot fetch setuptools and wheel from PyPI here: $(grep -E 'ERROR|Error' "$TMP/isolated.log" | tail -1 | sed 's/^ *//')"
else
    fail "the README's block (pip install ./python): exit status $status after $seconds s; its last lines:"
    tail -25 "$TMP/isolated.log" >&2
fi

sed 's|^pip install \./python$|pip install --no-build-isolation ./python|' "$block" >"$TMP/offline.sh"
mkdir "$TMP/home-offline" || exit 99
if run_block offline "$TMP/home-offline" "$TMP/offline.sh"; then
    pass "the README's offline form (pip install --no-build-isolation ./python): $seconds s"
    installed="$installed $TMP/home-offline"
else
    fail "pip install --no-build-isolation ./python: exit status $status after $seconds s; its last lines:"
    tail -25 "$TMP/offline.log" >&2
fi
[ -n "$installed" ] || finish

# Built once, where setup.py says (python/build/clxcorr-lib), library only.
if [ -f "$clone/python/build/clxcorr-lib/src/libclxcorr.la" ] && [ ! -e "$clone/src/clxcorr" ] \
    && [ ! -e "$clone/python/build/clxcorr-lib/src/clxcorr" ]; then
    pass "the library built in python/build/clxcorr-lib, and nothing else"
else
    fail "no library in python/build/clxcorr-lib, or more than it built: $(ls "$clone/python/build/clxcorr-lib/src" 2>&1 | head -5)"
fi

# The clone moved away: the package must need none of it.
mv "$clone" "$TMP/moved" || exit 99
"$CLXCORR_SAMPLES" --out "$TMP/set" --count 1 >/dev/null || exit 99
"$CLXCORR" offsets --regions "$TMP/set/regions.txt" "$TMP/set/reference.tif" "$TMP/set/image_0001.tif" \
    >"$TMP/cli.csv" || exit 99
cut -d, -f2,5,6,8 "$TMP/cli.csv" | tail -n +2 >"$TMP/cli.rows"
for home in $installed; do
    name=${home##*/}
    venv=$home/.venvs/clxcorr
    (cd "$TMP" && env -u LD_LIBRARY_PATH -u CLXCORR_KERNEL_DIR PYTHONDONTWRITEBYTECODE=1 "$venv/bin/python3" -c '
import logging, os, sys, clxcorr
d = sys.argv[1]
package = os.path.dirname(clxcorr.__file__)
# The library and the kernels the package carries, not an installed clxcorr.
loaded = {line.split()[-1] for line in open("/proc/self/maps") if "libclxcorr" in line}
assert loaded and all(p.startswith(os.path.join(package, "lib", "")) for p in loaded), "library loaded: %s" % loaded
said = []
handler = logging.Handler()
handler.emit = lambda record: said.append(record.getMessage())
logging.getLogger("clxcorr").addHandler(handler)
logging.getLogger("clxcorr").setLevel(logging.DEBUG)
ctx = clxcorr.Context()
kernels = [m for m in said if m.startswith("kernels from ")]
assert kernels and kernels[0].startswith("kernels from " + os.path.join(package, "lib", "..", "share", "clxcorr")), kernels
r = ctx.offsets(d + "/reference.tif", [d + "/image_0001.tif"], clxcorr.read_windows(d + "/regions.txt"))
for row in r:
    print("%d,%.6f,%.6f,%d" % (row["region"], row["dx"], row["dy"], row["flags"]))
' "$TMP/set") >"$TMP/$name.rows" 2>"$TMP/$name.err"
    status=$?
    if [ "$status" -ne 0 ]; then
        fail "$name: the installed clxcorr, with the clone moved away: exit status $status: $(tail -3 "$TMP/$name.err")"
    elif [ "$(wc -l <"$TMP/$name.rows")" -ne "$(wc -l <"$TMP/cli.rows")" ] || [ ! -s "$TMP/cli.rows" ] \
        || ! paste -d, "$TMP/$name.rows" "$TMP/cli.rows" | awk -F, '
            { e = $2 - $6; f = $3 - $7; if (e < 0) e = -e; if (f < 0) f = -f }
            $1 != $5 || $4 != $8 || e > 1.5e-6 || f > 1.5e-6 { print "row " NR ": " $0; bad = 1 }
            END { exit bad }' >"$TMP/$name.diff"; then
        fail "$name: the package's offsets differ from clxcorr offsets': $(head -3 "$TMP/$name.diff")"
    else
        pass "$name: the installed package, the clone moved away, no LD_LIBRARY_PATH: its own library and kernels, the command's offsets on $(wc -l <"$TMP/cli.rows") windows"
    fi
done
finish
