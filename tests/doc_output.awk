# doc_output.awk - does a block's output say what its page quotes? For
# tests/docs.sh: the first file is the quoted output (a ```text block right
# after the block), the second what the block printed. Every quoted line must
# match a printed line whose words are the same and whose numbers are within
# the quote's precision: 5 units of its last written digit, or 2 % of it,
# whichever is larger (so "1.0000" allows 0.9995 to 1.0005, "1.55e-05" 1.50
# to 1.60e-05). Prints each quoted line that nothing matches; exits 1 then.

# Splits s into its words and numbers: skeleton (numbers as '#'), nums[1..n].
function parse(s, nums,    n, skel, t) {
    n = 0
    skel = ""
    while (match(s, /-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?/)) {
        skel = skel substr(s, 1, RSTART - 1) "#"
        nums[++n] = substr(s, RSTART, RLENGTH)
        s = substr(s, RSTART + RLENGTH)
    }
    nums[0] = n
    return skel s
}

# The tolerance a quoted number carries.
function tolerance(q,    mant, expo, decimals, unit, rel) {
    mant = q
    expo = 0
    if (match(q, /[eE]/)) {
        mant = substr(q, 1, RSTART - 1)
        expo = substr(q, RSTART + 1) + 0
    }
    decimals = index(mant, ".") ? length(mant) - index(mant, ".") : 0
    unit = 5 * 10 ^ (expo - decimals)
    rel = 0.02 * (q < 0 ? -q : q)
    return unit > rel ? unit : rel
}

FNR == NR { quoted[++nq] = $0; next }
{ printed[++np] = $0 }

END {
    bad = 0
    for (i = 1; i <= nq; i++) {
        if (quoted[i] ~ /^[ \t]*$/)
            continue
        qskel = parse(quoted[i], qn)
        found = 0
        for (j = 1; j <= np && !found; j++) {
            if (parse(printed[j], pn) != qskel || pn[0] != qn[0])
                continue
            ok = 1
            for (k = 1; k <= qn[0] && ok; k++) {
                d = pn[k] - qn[k]
                if ((d < 0 ? -d : d) > tolerance(qn[k]))
                    ok = 0
            }
            found = ok
        }
        if (!found) {
            print "quoted, not printed: " quoted[i]
            bad = 1
        }
    }
    exit bad
}
