# tests/strain_error.awk - bench/strain_error.py in awk, for the tests
# (which cannot count on numpy): how far `clxcorr strain`'s rows are from
# the truth of `clxcorr-samples --kikuchi`.
#
#   awk -F, -f tests/strain_error.awk TRUTH.csv STRAIN.csv
#
# The truth's beta_s (b11..b33) gives F = I + beta_s = R U (polar
# decomposition by Higham's iteration R <- (R + R^-T) / 2); the strain is
# compared as the fit reports it, deviatoric, 3 U / tr U - I, and the
# rotation as R's rotation vector. Prints one line, as strain_error.py
# does: the RMS over the six strain components and the patterns, the
# largest, the rotation vector's RMS error per component, and the patterns
# counted (rows flagged 1 or 2 have no numbers and count as failures).
# Rows are matched to the truth by the image's file name.

function inverse_transpose(a, out,    d) {
    d = a[1] * (a[5] * a[9] - a[6] * a[8]) - a[2] * (a[4] * a[9] - a[6] * a[7]) + a[3] * (a[4] * a[8] - a[5] * a[7])
    # (A^-1)^T is the cofactor matrix over the determinant.
    out[1] = (a[5] * a[9] - a[6] * a[8]) / d; out[2] = -(a[4] * a[9] - a[6] * a[7]) / d
    out[3] = (a[4] * a[8] - a[5] * a[7]) / d; out[4] = -(a[2] * a[9] - a[3] * a[8]) / d
    out[5] = (a[1] * a[9] - a[3] * a[7]) / d; out[6] = -(a[1] * a[8] - a[2] * a[7]) / d
    out[7] = (a[2] * a[6] - a[3] * a[5]) / d; out[8] = -(a[1] * a[6] - a[3] * a[4]) / d
    out[9] = (a[1] * a[5] - a[2] * a[4]) / d
}

# F (row-major, 1-based) into R and U = R^T F.
function polar(f, r, u,    it, k, i, j, t) {
    for (k = 1; k <= 9; k++)
        r[k] = f[k]
    for (it = 0; it < 30; it++) {
        inverse_transpose(r, t)
        for (k = 1; k <= 9; k++)
            r[k] = 0.5 * (r[k] + t[k])
    }
    for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++)
            u[3 * i + j + 1] = r[i + 1] * f[j + 1] + r[i + 4] * f[j + 4] + r[i + 7] * f[j + 7]
}

function abs(x) {
    return x < 0 ? -x : x
}

FNR == 1 {
    for (k = 1; k <= NF; k++)
        col[FILENAME, $k] = k
    next
}

NR == FNR {
    truth[$col[FILENAME, "image"]] = $0
    next
}

{
    name = $col[FILENAME, "image"]
    sub(/.*\//, "", name)
    if (!(name in truth)) {
        print "strain_error.awk: no truth for " name > "/dev/stderr"
        missing = 1
        exit 2
    }
    if (int($col[FILENAME, "flags"]) % 4 != 0) {
        failed++
        next
    }
    split(truth[name], t, ",")
    for (i = 1; i <= 3; i++)
        for (j = 1; j <= 3; j++)
            f[3 * (i - 1) + j] = (i == j) + t[col[ARGV[1], "b" i j]]
    polar(f, r, u)
    tr = u[1] + u[5] + u[9]
    n = split("11 12 13 22 23 33", pairs, " ")
    for (k = 1; k <= n; k++) {
        i = substr(pairs[k], 1, 1) + 0
        j = substr(pairs[k], 2, 1) + 0
        d = $col[FILENAME, "e" pairs[k]] - (3 * u[3 * (i - 1) + j] / tr - (i == j))
        se += d * d
        if (abs(d) > worst)
            worst = abs(d)
    }
    a[1] = 0.5 * (r[8] - r[6]); a[2] = 0.5 * (r[3] - r[7]); a[3] = 0.5 * (r[4] - r[2])
    s = sqrt(a[1] * a[1] + a[2] * a[2] + a[3] * a[3])
    angle = atan2(s, 0.5 * (r[1] + r[5] + r[9] - 1))
    for (k = 1; k <= 3; k++) {
        d = $col[FILENAME, "w" k] - (s > 0 ? a[k] * angle / s : a[k])
        re += d * d
    }
    patterns++
}

END {
    if (missing)
        exit 2
    printf "strain rms %.2e max %.2e, rotation rms %.2e rad, patterns %d, failed %d\n",
        patterns ? sqrt(se / (6 * patterns)) : 0, worst, patterns ? sqrt(re / (3 * patterns)) : 0, patterns, failed
}
