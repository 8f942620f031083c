# tests/orientation_truth.awk - how far `clxcorr strain`'s refined
# orientations (phi1, Phi, phi2) are from a truth file's (tests/data/hrebsd's
# *_truth.csv, made with orix): the largest rotation angle between the two,
# g_a g_b^T (no crystal symmetry: the same crystal either way).
#
#   awk -F, -f tests/orientation_truth.awk TRUTH.csv STRAIN.csv
#
# Rows are matched by (scan_row, scan_col); prints "orientation max X rad,
# patterns N".

function bunge(p1, P, p2, g,    c1, s1, c, s, c2, s2) {
    c1 = cos(p1); s1 = sin(p1); c = cos(P); s = sin(P); c2 = cos(p2); s2 = sin(p2)
    # g = R_z(phi2) R_x(Phi) R_z(phi1), the passive rotations multiplied out.
    g[1] = c1 * c2 - s1 * s2 * c; g[2] = s1 * c2 + c1 * s2 * c; g[3] = s2 * s
    g[4] = -c1 * s2 - s1 * c2 * c; g[5] = -s1 * s2 + c1 * c2 * c; g[6] = c2 * s
    g[7] = s1 * s; g[8] = -c1 * s; g[9] = c
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
        print "orientation_truth.awk: no truth for scan point " point > "/dev/stderr"
        exit 2
    }
    split(truth[point], t, ",")
    bunge($col[FILENAME, "phi1"], $col[FILENAME, "Phi"], $col[FILENAME, "phi2"], a)
    bunge(t[col[ARGV[1], "phi1"]], t[col[ARGV[1], "Phi"]], t[col[ARGV[1], "phi2"]], b)
    # trace(a b^T)
    tr = 0
    for (k = 1; k <= 9; k++)
        tr += a[k] * b[k]
    c = (tr - 1) / 2
    if (c > 1) c = 1
    if (c < -1) c = -1
    angle = atan2(sqrt(1 - c * c), c)
    if (angle != angle || angle > worst)
        worst = angle
    patterns++
}

END {
    printf "orientation max %.2e rad, patterns %d\n", worst, patterns
}
