#!/bin/sh
# `make install` into a staging directory (DESTDIR) puts the command, the
# shared and static library, the header, clxcorr.pc, the man page and the kernels in
# place; samples/api_example.c then builds against the installed library
# through pkg-config alone, shared and static, and runs on its installed
# kernels. Skipped (77) without pkg-config or a C compiler.
. "$TESTS_SRCDIR/lib.sh"

PKG_CONFIG=${PKG_CONFIG:-pkg-config}
CC=${CC:-cc}
if ! command -v "$PKG_CONFIG" >/dev/null 2>&1; then
    echo "SKIP: no pkg-config"
    exit 77
fi
if ! command -v "${CC%% *}" >/dev/null 2>&1; then
    echo "SKIP: no C compiler ($CC)"
    exit 77
fi

# The install itself. The test runs inside `make check`: the outer make's
# jobserver and flags are not this make's.
root=$TMP/root
if ! (unset MAKEFLAGS MFLAGS MAKELEVEL; ${MAKE:-make} -C "$BUILDDIR" install DESTDIR="$root") \
    >"$TMP/install.log" 2>&1; then
    fail "make install DESTDIR=...: $(tail -5 "$TMP/install.log")"
    finish
fi
pass "make install DESTDIR=$root"

for f in "$bindir/clxcorr" "$libdir/libclxcorr.so" "$libdir/libclxcorr.a" "$includedir/clxcorr.h" \
    "$libdir/pkgconfig/clxcorr.pc" "$pkgdatadir/prepare.cl" "$mandir/man1/clxcorr.1"; do
    [ -f "$root$f" ] && pass "installed $f" || fail "not installed: $f"
done
grep -q "^prefix=$prefix\$" "$root$libdir/pkgconfig/clxcorr.pc" \
    && pass "clxcorr.pc names the prefix $prefix" || fail "clxcorr.pc: $(head -3 "$root$libdir/pkgconfig/clxcorr.pc")"

# pkg-config as a user would call it, with the staging directory as the
# system root; --static adds what libclxcorr.a needs.
PKG_CONFIG_PATH=$root$libdir/pkgconfig
PKG_CONFIG_SYSROOT_DIR=$root
export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
cflags=$("$PKG_CONFIG" --cflags clxcorr) && libs=$("$PKG_CONFIG" --libs clxcorr) \
    && static_libs=$("$PKG_CONFIG" --static --libs clxcorr) || { fail "pkg-config clxcorr failed"; finish; }
case " $cflags " in *" -I$root$includedir "*) pass "--cflags: $cflags" ;; *) fail "--cflags: $cflags" ;; esac

cp "$TESTS_SRCDIR/../samples/api_example.c" "$TMP/"
# A library built with --enable-sanitizers needs its program built with them too.
cflags="$cflags ${SANITIZER_FLAGS:-}"
# shellcheck disable=SC2086
if $CC $cflags "$TMP/api_example.c" -o "$TMP/api_shared" $libs >"$TMP/cc.log" 2>&1; then
    pass "api_example.c builds with pkg-config's flags"
else
    fail "building against the installed library: $(head -5 "$TMP/cc.log")"
fi
# libclxcorr.a named in place of -lclxcorr, the rest as --static says. The
# sysroot also prefixes the -L of dependencies outside the default search
# path (HDF5's, on Debian): those are the host's own.
static_rest=$(printf '%s\n' $static_libs | grep -v '^-lclxcorr$' | while read -r word; do
    case $word in
    -L"$root"/*) [ -d "${word#-L}" ] && echo "$word" || echo "-L${word#-L$root}" ;;
    *) echo "$word" ;;
    esac
done | tr '\n' ' ')
# shellcheck disable=SC2086
if $CC $cflags "$TMP/api_example.c" -o "$TMP/api_static" "$root$libdir/libclxcorr.a" $static_rest \
    >"$TMP/cc-static.log" 2>&1; then
    pass "api_example.c builds against libclxcorr.a with --static's flags"
else
    fail "building against libclxcorr.a: $(head -5 "$TMP/cc-static.log")"
fi

need_device
"$CLXCORR_SAMPLES" --out "$TMP/set" --size 256x256 --count 2 --grid 3x3 --window 48x48 --margin 16 \
    --max-shift 3 || exit 99
set -- "$TMP/set/reference.tif" "$TMP/set/regions.txt" "$TMP/set"/image_*.tif
# The installed kernels, not the source tree's.
CLXCORR_KERNEL_DIR=$root$pkgdatadir
export CLXCORR_KERNEL_DIR
LD_LIBRARY_PATH=$root$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$TMP/api_shared" "$@" >"$TMP/shared.csv" \
    2>"$TMP/shared.err" || fail "the shared build failed: $(cat "$TMP/shared.err")"
"$TMP/api_static" "$@" >"$TMP/static.csv" 2>"$TMP/static.err" \
    || fail "the static build failed: $(cat "$TMP/static.err")"
LD_LIBRARY_PATH=$root$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} ldd "$TMP/api_shared" 2>/dev/null \
    | grep -q "$root$libdir/libclxcorr.so" && pass "the shared build loads the installed libclxcorr.so" \
    || fail "the shared build does not load $root$libdir/libclxcorr.so"
ldd "$TMP/api_static" 2>/dev/null | grep -q "libclxcorr" \
    && fail "the static build loads a shared libclxcorr" || pass "the static build has libclxcorr inside"
"$API_EXAMPLE" "$@" >"$TMP/built.csv" 2>"$TMP/built.err" || fail "samples/api_example: $(cat "$TMP/built.err")"
rows=$(($(wc -l <"$TMP/built.csv") - 1))
if [ "$rows" -eq 18 ] && cmp -s "$TMP/shared.csv" "$TMP/built.csv" && cmp -s "$TMP/static.csv" "$TMP/built.csv"; then
    pass "shared and static builds print the build tree's $rows rows"
else
    fail "$rows rows; shared vs build tree: $(diff "$TMP/shared.csv" "$TMP/built.csv" | head -3);" \
        "static vs build tree: $(diff "$TMP/static.csv" "$TMP/built.csv" | head -3)"
fi
finish
