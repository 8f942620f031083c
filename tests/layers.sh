#!/bin/sh
# The library's layers (doc/layout.md): each folder of src/ uses only
# the folders below it, and no files use each other in a loop.
#
# Four checks, on what the compiler and linker see rather than on names:
# - includes: no file includes a header of a higher folder, and the command
#   (src/cli) includes no library header but include/clxcorr.h;
# - calls: every symbol an object file of the library takes from another
#   one (nm) is defined in its own folder or a lower one, and the command's
#   objects take only the public clx_ functions;
# - drawing: the pictures are the command's (src/cli/plot/, drawn with
#   cairo): no other file includes cairo or calls it, so that the library
#   links no drawing library;
# - loops: the files, joined by the symbols they take from each other, form
#   no cycle (tsort finds one if there is).
. "$TESTS_SRCDIR/lib.sh"

# The folders, lowest first.
LAYERS="runtime params image strain ops pipeline tune cli"
SRC="$TESTS_SRCDIR/../src"

rank() {
    r=1
    for l in $LAYERS; do
        [ "$l" = "$1" ] && { echo "$r"; return; }
        r=$((r + 1))
    done
    echo 0
}

# ---- includes ---------------------------------------------------------------
up=0
seen=0
for f in $(cd "$SRC" && find . -name '*.[ch]' | sed 's|^\./||' | sort); do
    layer=${f%%/*}
    own=$(rank "$layer")
    [ "$own" -eq 0 ] && { fail "src/$f: not in a layer folder ($LAYERS)"; continue; }
    # The folder of every quoted include that names one, whatever the
    # header's name holds (image/hdf5_read.h, output/h5_output.h).
    for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"/]*\)\/[^"]*".*/\1/p' "$SRC/$f"); do
        seen=$((seen + 1))
        r=$(rank "$inc")
        if [ "$layer" = cli ] && [ "$r" -ne 0 ] && [ "$inc" != cli ]; then
            fail "src/$f includes a library header ($inc/): the command uses clxcorr.h only"
            up=$((up + 1))
        elif [ "$r" -gt "$own" ]; then
            fail "src/$f ($layer) includes a header of $inc, a higher layer"
            up=$((up + 1))
        fi
    done
done
[ "$up" -eq 0 ] && pass "no file includes a header of a higher layer ($seen includes of a folder's header)"

# ---- calls ------------------------------------------------------------------
# The library's objects (PIC ones where libtool made both) and the command's,
# as "folder/name object" lines.
objects() {
    find "$BUILDDIR/src" -name '*.o' | grep -v '/bench/\|/tests/' | while read -r o; do
        dir=$(dirname "$o" | sed "s|^$BUILDDIR/src/||; s|/\.libs$||")
        name=$(basename "$o" .o | sed 's/^[a-z_]*-//')
        echo "$dir/$name $o"
    done | sort -u -k1,1
}
objects >"$TMP/objects"
[ -s "$TMP/objects" ] || { echo "SKIP: no object files under $BUILDDIR/src"; exit 77; }

while read -r file o; do
    nm -P "$o" 2>/dev/null | awk -v f="$file" '$2 ~ /^[TDBRC]$/ { print "def", $1, f } $2 == "U" { print "use", $1, f }'
done <"$TMP/objects" >"$TMP/symbols"

# One "user definer symbol" line per symbol a file takes from another file.
awk '$1 == "def" { def[$2] = $3 } $1 == "use" { use[++n] = $3 " " $2 }
     END { for (i = 1; i <= n; i++) { split(use[i], u, " "); if ((u[2] in def) && def[u[2]] != u[1]) print u[1], def[u[2]], u[2] } }' \
    "$TMP/symbols" | sort -u >"$TMP/edges"
[ -s "$TMP/edges" ] || fail "no symbol crosses between the object files: nm found nothing"

bad=0
while read -r user definer symbol; do
    ul=${user%%/*} dl=${definer%%/*}
    if [ "$ul" = cli ]; then
        [ "$dl" = cli ] && continue
        case "$symbol" in clx_*) continue ;; esac
        fail "src/$user calls $symbol of src/$definer: the command uses the public API only"
        bad=$((bad + 1))
        continue
    fi
    if [ "$(rank "$dl")" -gt "$(rank "$ul")" ]; then
        fail "src/$user ($ul) calls $symbol of src/$definer ($dl), a higher layer"
        bad=$((bad + 1))
    fi
done <"$TMP/edges"
[ "$bad" -eq 0 ] && pass "no call from a lower layer to a higher one ($(wc -l <"$TMP/edges") file-to-file uses)"

# ---- drawing ----------------------------------------------------------------
includers=$(cd "$SRC" && grep -l '^[[:space:]]*#[[:space:]]*include[[:space:]]*<cairo' $(find . -name '*.[ch]') \
    | sed 's|^\./||' | grep -v '^cli/plot/' | tr '\n' ' ')
callers=$(awk '$1 == "use" && $2 ~ /^cairo_/ && $3 !~ /^cli\/plot\// { print "src/" $3 }' "$TMP/symbols" | sort -u \
    | tr '\n' ' ')
drawers=$(awk '$1 == "use" && $2 ~ /^cairo_/ { print $3 }' "$TMP/symbols" | sort -u | wc -l)
if [ -n "$includers$callers" ]; then
    fail "cairo outside src/cli/plot: included by ${includers:-none}; called by ${callers:-none}"
elif [ "$drawers" -eq 0 ]; then
    fail "no object calls cairo: the pictures' objects are missing"
else
    pass "only src/cli/plot draws: cairo called by $drawers of its files, by no other"
fi

# ---- loops ------------------------------------------------------------------
awk '{ print $1, $2 }' "$TMP/edges" | sort -u >"$TMP/pairs"
if tsort "$TMP/pairs" >/dev/null 2>"$TMP/tsort.err"; then
    pass "no files call each other in a loop ($(wc -l <"$TMP/objects") files)"
else
    fail "files call each other in a loop: $(grep -v 'input contains a loop' "$TMP/tsort.err" | sed 's/^tsort: //' | tr '\n' ' ')"
fi

finish
