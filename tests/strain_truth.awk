# tests/strain_truth.awk - how far `clxcorr strain`'s rows are from a truth
# file that states the expected columns itself (tests/data/hrebsd's
# *_truth.csv, made by kikuchipy): e11..e33 and w1..w3 per scan point.
#
#   awk -F, -f tests/strain_truth.awk TRUTH.csv STRAIN.csv
#
# Rows are matched by (scan_row, scan_col). Prints one line: the RMS over
# the six strain components and the patterns, the largest, the rotation
# vector's RMS error per component and its largest, and the patterns
# counted (rows flagged 1 or 2 have no numbers and count as failures).

function abs(x) {
    return x < 0 ? -x : x
}

{ sub(/\r$/, "") }

FNR == 1 {
    for (k = 1; k <= NF; k++)
        col[FILENAME, $k] = k
    next
}

NR == FNR {
    truth[$col[FILENAME, "scan_row"] "," $col[FILENAME, "scan_col"]] = $0
    next
}

{
    point = $col[FILENAME, "scan_row"] "," $col[FILENAME, "scan_col"]
    if (!(point in truth)) {
        print "strain_truth.awk: no truth for scan point " point > "/dev/stderr"
        missing = 1
        exit 2
    }
    if (int($col[FILENAME, "flags"]) % 4 != 0) {
        failed++
        next
    }
    split(truth[point], t, ",")
    n = split("e11 e12 e13 e22 e23 e33", names, " ")
    for (k = 1; k <= n; k++) {
        d = $col[FILENAME, names[k]] - t[col[ARGV[1], names[k]]]
        se += d * d
        if (abs(d) > worst)
            worst = abs(d)
    }
    for (k = 1; k <= 3; k++) {
        d = $col[FILENAME, "w" k] - t[col[ARGV[1], "w" k]]
        re += d * d
        if (abs(d) > worst_w)
            worst_w = abs(d)
    }
    patterns++
}

END {
    if (missing)
        exit 2
    printf "strain rms %.2e max %.2e, rotation rms %.2e max %.2e rad, patterns %d, failed %d\n",
        patterns ? sqrt(se / (6 * patterns)) : 0, worst, patterns ? sqrt(re / (3 * patterns)) : 0, worst_w,
        patterns, failed
}
