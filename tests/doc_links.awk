# doc_links.awk - the relative links of Markdown pages, for tests/docs.sh:
# prints "PAGE:LINE: TARGET" for each link (outside code blocks) whose file
# does not exist, or whose #anchor names no heading of its page (GitHub's
# anchors: the heading in lower case, punctuation dropped, spaces as '-').
# Variable: root (the source tree). Arguments: the pages, relative to root.

function dirname(p) {
    if (p !~ /\//)
        return ""
    sub(/\/[^\/]*$/, "", p)
    return p "/"
}

# a/b/../c -> a/c, ./x -> x
function normalise(p,    n, parts, out, i, k) {
    n = split(p, parts, "/")
    k = 0
    for (i = 1; i <= n; i++) {
        if (parts[i] == "" || parts[i] == ".")
            continue
        if (parts[i] == ".." && k > 0 && out[k] != "..") {
            k--
            continue
        }
        out[++k] = parts[i]
    }
    p = ""
    for (i = 1; i <= k; i++)
        p = p (i > 1 ? "/" : "") out[i]
    return p
}

function exists(p) {
    return system("test -e \"" root "/" p "\"") == 0
}

function anchor(heading) {
    heading = tolower(heading)
    gsub(/[^a-z0-9_ -]/, "", heading)
    gsub(/ /, "-", heading)
    return heading
}

# The anchors of page p, read once into have[p, anchor].
function load_anchors(p,    line, inside, h) {
    if ((p, "") in loaded)
        return
    loaded[p, ""] = 1
    inside = 0
    while ((getline line < (root "/" p)) > 0) {
        if (line ~ /^```/)
            inside = !inside
        if (!inside && line ~ /^#+[ \t]/) {
            h = line
            sub(/^#+[ \t]+/, "", h)
            sub(/[ \t]+$/, "", h)
            have[p, anchor(h)] = 1
        }
    }
    close(root "/" p)
}

FNR == 1 {
    page = FILENAME
    sub("^" root "/", "", page)
    inside = 0
}
/^```/ { inside = !inside; next }
inside { next }
{
    rest = $0
    while (match(rest, /\]\([^)]+\)/)) {
        target = substr(rest, RSTART + 2, RLENGTH - 3)
        rest = substr(rest, RSTART + RLENGTH)
        if (target ~ /^[a-z]+:/)
            continue
        file = target
        frag = ""
        if (index(target, "#") > 0) {
            file = substr(target, 1, index(target, "#") - 1)
            frag = substr(target, index(target, "#") + 1)
        }
        path = file == "" ? page : normalise(dirname(page) file)
        if (!exists(path)) {
            printf "%s:%d: %s: no such file\n", page, FNR, target
            bad++
        } else if (frag != "" && path ~ /\.md$/) {
            load_anchors(path)
            if (!((path, frag) in have)) {
                printf "%s:%d: %s: no such heading\n", page, FNR, target
                bad++
            }
        }
    }
}
END { exit bad > 0 }
