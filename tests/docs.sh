#!/bin/sh
# Documentation is code: every shell block of README.md and doc/*.md is run,
# page by page, as a reader runs it after the quickstart, and must succeed;
# every relative link must lead to a file and heading, and where a page
# quotes what a block prints (a ```text block right after it), the block
# must print it, numbers within the quote's precision (tests/doc_output.awk).
#
# A page runs in a directory of its own that looks like the source tree after
# the quickstart (its top-level entries linked, samples/data generated, the
# built src/ and samples/ first in PATH), so that its outputs land there and
# never in the tree. Its blocks run one after the other in that directory,
# each in its own `bash -e -o pipefail`, so that a later block reads what an
# earlier one wrote. A block is not run only where the line before its fence
# says why: `<!-- not run: REASON -->` (the quickstart's install, which
# .ci/run runs; a GPU or a cluster this machine lacks); a marker without a
# reason fails.
#
# DOCS_LANGS (default "sh") names the block languages to run: "python" runs
# the ```python blocks with $PYTHON (python3), where `import clxcorr, numpy`
# works (tests/python.sh and .ci/run's Python stage run them); DOCS_PAGES
# limits the pages (names relative to the source tree).
. "$TESTS_SRCDIR/lib.sh"
need_device
# The sanitizer build runs the same commands through the rest of the suite;
# the pages' few minutes are spent once, in the plain build.
if [ -n "${SANITIZER_FLAGS:-}" ]; then
    echo "SKIP: the documentation runs in the plain build (this one has sanitizers)"
    exit 77
fi

SRCDIR=$(cd "$TESTS_SRCDIR/.." && pwd)
PYTHON=${PYTHON:-python3}
langs=${DOCS_LANGS:-sh}
pages=${DOCS_PAGES:-$(cd "$SRCDIR" && ls README.md doc/*.md)}

case " $langs " in
*" python "*)
    if ! (cd "$TMP" && "$PYTHON" -c 'import clxcorr, numpy') 2>"$TMP/import.err"; then
        echo "SKIP: the documentation's Python blocks: $PYTHON cannot import clxcorr and numpy: $(tail -1 "$TMP/import.err")"
        exit 77
    fi ;;
esac

# The pages' cache directory: their own, shared by the pages, so that the
# tuning and method files a page writes steer neither other tests nor the
# user's runs; compiled kernels (keyed by source, options and device) and
# PoCL's compiler cache stay shared, as in tests/cli_tune.sh.
user_cache=${XDG_CACHE_HOME:-$HOME/.cache}
export POCL_CACHE_DIR="${POCL_CACHE_DIR:-$user_cache/pocl}"
mkdir -p "$user_cache/clxcorr/kernels" "$TMP/cache/clxcorr" \
    && ln -s "$user_cache/clxcorr/kernels" "$TMP/cache/clxcorr/kernels" || exit 99
export XDG_CACHE_HOME="$TMP/cache"

# The quickstart's state, once for every page: the sample set.
"$CLXCORR_SAMPLES" --out "$TMP/sample-data" --count 24 >/dev/null || exit 99

# page_tree DIR: DIR as the source tree after the quickstart.
page_tree() {
    mkdir -p "$1/samples" || exit 99
    for entry in "$SRCDIR"/* "$SRCDIR"/.ci; do
        name=$(basename "$entry")
        case $name in
        src) ln -s "$BUILDDIR/src" "$1/src" ;;
        samples) ;;
        # A copy: a page that writes into doc/ (where the pictures are)
        # must not change the tree's, and -o follows links.
        doc) cp -R "$entry" "$1/doc" ;;
        *) ln -s "$entry" "$1/$name" ;;
        esac
    done
    for entry in "$SRCDIR"/samples/* "$BUILDDIR"/samples/*; do
        name=$(basename "$entry")
        [ "$name" = data ] || [ -e "$1/samples/$name" ] || ln -s "$entry" "$1/samples/$name"
    done
    ln -s "$TMP/sample-data" "$1/samples/data"
}

# Every relative link of the pages leads to a file, and every #anchor to a
# heading of its page.
if [ "$langs" = sh ]; then
    # shellcheck disable=SC2086
    (cd "$SRCDIR" && awk -v root="$SRCDIR" -f "$TESTS_SRCDIR/doc_links.awk" $pages bench/README.md) >"$TMP/links" 2>&1 \
        && pass "every link of the pages leads somewhere" || fail "broken links: $(cat "$TMP/links")"
fi

# Every page's blocks as files NNN.LANG, with a list "NNN LANG PAGE:LINE
# [not run: REASON]" (tests/doc_blocks.awk).
total=0
for page in $pages; do
    dir=$TMP/pages/$(echo "$page" | tr '/.' '__')
    mkdir -p "$dir/blocks" || exit 99
    awk -v out="$dir/blocks" -v page="$page" -f "$TESTS_SRCDIR/doc_blocks.awk" "$SRCDIR/$page" >"$dir/list" \
        || { fail "$page: $(cat "$dir/list")"; continue; }
    page_tree "$dir/tree"
    while read -r n lang where reason; do
        case " $langs " in *" $lang "*) ;; *) continue ;; esac
        if [ -n "$reason" ]; then
            case $reason in
            "not run:"?*) pass "$where: $reason" ;;
            *) fail "$where: a block left out without a reason" ;;
            esac
            continue
        fi
        total=$((total + 1))
        case $lang in
        sh) run="bash -e -o pipefail" ;;
        python) run=$PYTHON ;;
        esac
        start=$(date +%s)
        (cd "$dir/tree" && PATH="$dir/tree/src:$dir/tree/samples:$PATH" PYTHONDONTWRITEBYTECODE=1 \
            timeout 900 $run "$dir/blocks/$n.$lang") >"$dir/$n.out" 2>&1
        status=$?
        if [ "$status" -ne 0 ]; then
            fail "$where: exit status $status; its last lines:"
            tail -15 "$dir/$n.out" | sed 's/^/    /' >&2
        elif [ -f "$dir/blocks/$n.expected" ] \
            && ! awk -f "$TESTS_SRCDIR/doc_output.awk" "$dir/blocks/$n.expected" "$dir/$n.out" >"$dir/$n.diff"; then
            fail "$where: prints other figures than the page quotes: $(cat "$dir/$n.diff"); it printed:"
            tail -15 "$dir/$n.out" | sed 's/^/    /' >&2
        else
            quoted=""
            [ -f "$dir/blocks/$n.expected" ] && quoted=", prints what the page quotes"
            pass "$where ($(($(date +%s) - start)) s$quoted)"
        fi
    done <"$dir/list"
done
[ "$total" -gt 0 ] || fail "no $langs block found in: $pages"
finish
