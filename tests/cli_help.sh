#!/bin/sh
# Every command that `clxcorr --help` lists answers --help, -h and
# `clxcorr help CMD` with the same usage text on standard output and exit
# status 0; the man page has a section for each and names every long
# option each --help lists; and it renders without a groff warning.
. "$TESTS_SRCDIR/lib.sh"

MAN_PAGE=$TESTS_SRCDIR/../doc/clxcorr.1
"$CLXCORR" --help >"$TMP/help" || fail "clxcorr --help: exit status $?"
# The names in the "Commands:" block, less "help" itself.
commands=$(awk '/^Commands:/ { on = 1; next } on && /^$/ { on = 0 } on && /^  [a-z]/ { print $1 }' "$TMP/help" \
    | grep -v '^help$')
[ "$(echo "$commands" | wc -w)" -ge 6 ] && pass "commands: $(echo $commands)" || fail "commands: '$commands'"

for cmd in $commands; do
    if ! "$CLXCORR" "$cmd" --help >"$TMP/h1" 2>"$TMP/e1"; then
        fail "$cmd --help: exit status $?"
        continue
    fi
    "$CLXCORR" "$cmd" -h >"$TMP/h2" 2>&1 || fail "$cmd -h: exit status $?"
    "$CLXCORR" help "$cmd" >"$TMP/h3" 2>&1 || fail "help $cmd: exit status $?"
    if [ -s "$TMP/e1" ]; then
        fail "$cmd --help writes to standard error: $(head -2 "$TMP/e1")"
    elif ! head -1 "$TMP/h1" | grep -q "^Usage: clxcorr $cmd"; then
        fail "$cmd --help starts with: $(head -1 "$TMP/h1")"
    elif ! cmp -s "$TMP/h1" "$TMP/h2" || ! cmp -s "$TMP/h1" "$TMP/h3"; then
        fail "$cmd: --help, -h and help $cmd differ"
    else
        pass "$cmd --help ($(wc -l <"$TMP/h1") lines)"
    fi

    grep -q "^\.SS $cmd\$" "$MAN_PAGE" && pass "man page: section $cmd" || fail "man page: no section for $cmd"
    missing=
    for option in $(grep -oE -- '--[a-z][a-z0-9-]*' "$TMP/h1" | sort -u); do
        # In roff every '-' is written '\-'.
        grep -qF -- "$(printf '%s' "$option" | sed 's/-/\\-/g')" "$MAN_PAGE" || missing="$missing $option"
    done
    [ -z "$missing" ] && pass "man page names every option of $cmd" || fail "man page lacks $cmd's$missing"
done

if command -v groff >/dev/null 2>&1; then
    groff -man -Tutf8 -ww "$MAN_PAGE" >"$TMP/man.txt" 2>"$TMP/man.err"
    if [ -s "$TMP/man.err" ]; then
        fail "groff warns: $(head -3 "$TMP/man.err")"
    # Bold is overstruck (E^HE): drop the first of each pair.
    elif ! sed "s/.$(printf '\b')//g" "$TMP/man.txt" | grep -q "EXIT STATUS"; then
        fail "the man page rendered without EXIT STATUS"
    else
        pass "the man page renders without warnings"
    fi
    # The source is ASCII (a glyph is an escape); the glyphs its escapes
    # give are the ones meant (\(pc, a centred dot, once stood for '%'),
    # and an ASCII terminal gets a spelling of each, not nothing.
    if LC_ALL=C grep -q "$(printf '[\200-\377]')" "$MAN_PAGE"; then
        fail "the man page's source has bytes beyond ASCII: $(LC_ALL=C grep -n "$(printf '[\200-\377]')" "$MAN_PAGE" | head -2)"
    fi
    glyphs=$(sed "s/.$(printf '\b')//g" "$TMP/man.txt" | LC_ALL=C.UTF-8 grep -o '[^ -~]' | sort -u | tr -d '\n')
    unexpected=$(printf '%s' "$glyphs" | LC_ALL=C.UTF-8 sed 's/[‘’“”‐−×≤≥µΣ]//g')
    [ -z "$unexpected" ] && pass "the man page's glyphs: $glyphs" || fail "the man page renders unexpected glyphs: $unexpected"
    # One line, spaces as one: the words wherever the lines break.
    groff -man -Tascii -ww "$MAN_PAGE" 2>/dev/null | sed "s/.$(printf '\b')//g" | tr '\n' ' ' | tr -s ' ' \
        >"$TMP/man.ascii"
    if LC_ALL=C grep -q "$(printf '[\200-\377]')" "$TMP/man.ascii"; then
        fail "the man page in ASCII has other bytes: $(LC_ALL=C grep -o ".\{20\}$(printf '[\200-\377]')" "$TMP/man.ascii" | head -2)"
    elif ! grep -q "is 50% overlap" "$TMP/man.ascii" || ! grep -q "step in um," "$TMP/man.ascii" ||
        ! grep -q "C(u) = sum_p r(p)" "$TMP/man.ascii"; then
        fail "the man page in ASCII: $(grep -oE '.{20}(overlap\)|step in|C\(u\) =).{20}' "$TMP/man.ascii" | head -3)"
    else
        pass "the man page in ASCII: 50% overlap, um, sum_p"
    fi
else
    echo "groff not installed: rendering not checked"
fi
finish
