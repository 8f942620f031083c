#!/bin/sh
# The Python package (python/): its extension built against this build
# tree's libclxcorr (CLXCORR_BUILD_DIR, as for development) and its pytest
# suite run on it: every dtype, stacks, generators, files, windows, every
# documented error, the command's rows on the sample set, no leak over 1,000
# calls, two threads with two contexts; then the Python blocks of README.md
# and doc/*.md (tests/docs.sh).
#
# Skipped (77), saying why, without python3 (or $PYTHON), numpy, pytest,
# setuptools or Python's headers (Debian: python3-numpy python3-pytest
# python3-setuptools python3-dev), without an OpenCL device, and in a
# sanitizer build, whose library cannot be loaded into an interpreter that
# was not started with the sanitizers' runtime.
. "$TESTS_SRCDIR/lib.sh"

PYTHON=${PYTHON:-python3}
PACKAGE=$TESTS_SRCDIR/../python
skip() {
    echo "SKIP: the Python package's tests: $*"
    exit 77
}
command -v "$PYTHON" >/dev/null 2>&1 || skip "no $PYTHON"
for module in numpy pytest setuptools; do
    "$PYTHON" -c "import $module" 2>/dev/null || skip "$PYTHON has no $module (Debian: python3-$module)"
done
"$PYTHON" -c 'import os, sysconfig; assert os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h"))' \
    2>/dev/null || skip "no Python.h for $PYTHON (Debian: python3-dev)"
[ -z "${SANITIZER_FLAGS:-}" ] || skip "a sanitizer build (its libclxcorr needs the sanitizers' runtime loaded first)"
need_device

# Built into the build tree, where a later run rebuilds only what changed;
# nothing is written into the source tree (no bytecode, no pytest cache).
build=$BUILDDIR/python-build
if (cd "$PACKAGE" && CLXCORR_BUILD_DIR=$BUILDDIR "$PYTHON" setup.py -q build --build-base "$build") \
    >"$TMP/build.log" 2>&1; then
    pass "the extension builds against $BUILDDIR's libclxcorr"
else
    fail "building the extension: $(grep -E 'error|clxcorr:' "$TMP/build.log" | head -5)"
    finish
fi
lib=$("$PYTHON" -c 'import sys, sysconfig; print("lib.%s-%s" % (sysconfig.get_platform(), sys.implementation.cache_tag))')
[ -d "$build/$lib" ] || lib=$(cd "$build" && ls -d lib* | head -1)

cd "$TMP" || exit 99
if PYTHONPATH=$build/$lib PYTHONDONTWRITEBYTECODE=1 CLXCORR=$CLXCORR CLXCORR_SAMPLES=$CLXCORR_SAMPLES \
    "$PYTHON" -m pytest -q -rs -p no:cacheprovider --rootdir "$PACKAGE" "$PACKAGE/tests" >"$TMP/pytest.log" 2>&1; then
    pass "pytest: $(tail -1 "$TMP/pytest.log")"
    # Each skipped test with its reason (-rs), named in the log.
    grep '^SKIPPED' "$TMP/pytest.log" | sed 's/^/skipped: /' || true
else
    fail "pytest: $(grep -E '^(FAILED|ERROR)' "$TMP/pytest.log" | head -10; tail -1 "$TMP/pytest.log")"
    cat "$TMP/pytest.log" >&2
fi

# The documentation's Python blocks (README.md, doc/*.md) on the same build.
if PYTHONPATH=$build/$lib DOCS_LANGS=python PYTHON=$PYTHON sh "$TESTS_SRCDIR/docs.sh" >"$TMP/docs.log" 2>&1; then
    pass "the documentation's Python blocks: $(grep -c '^ok: ' "$TMP/docs.log") ran"
else
    fail "the documentation's Python blocks: $(grep -v '^ok: ' "$TMP/docs.log" | head -20)"
fi
finish
