# bench/bias_curve.awk - the bias curve of a run on a synthetic set: the
# mean offset error against the true shift's sub-pixel part.
#   awk -F, -v BIN=0.05 -f bench/bias_curve.awk SET/truth.csv RESULT.csv
# Files as bench/offset_error.awk takes them. Each axis of each matched row
# is one sample: its error (measured minus true) goes to the bin of the true
# shift's fraction, frac = t - floor(t), bin k holding fractions within
# BIN / 2 of k BIN (fractions near 1 join bin 0: a shift of 1 px is a whole
# pixel, like 0). Prints one line per bin, "FRACTION MEAN_ERROR SAMPLES",
# then "summary PEAK_TO_PEAK BIAS_RMS RMS SAMPLES": the bin means' range
# and root mean square, and the root mean square of every sample's error
# (bias and scatter together, per axis). Exits 1 when no row matched.
BEGIN {
    if (BIN == "")
        BIN = 0.05
    nbins = int(1 / BIN + 0.5)
}
NR == FNR {
    if (FNR > 1)
        truth[$1 "," $2] = $5 "," $6
    next
}
FNR > 1 {
    n = split($1, path, "/")
    key = path[n] "," $2
    if (!(key in truth))
        next
    split(truth[key], t, ",")
    add(t[1], $5 - t[1])
    add(t[2], $6 - t[2])
}
function floor_(x) { return x < 0 && x != int(x) ? int(x) - 1 : int(x) }
function add(t, e,    f, k) {
    f = t - floor_(t)
    k = int(f / BIN + 0.5) % nbins
    sum[k] += e
    count[k]++
    all2 += e * e
    samples++
}
END {
    if (!samples) {
        print "no rows matched the truth" > "/dev/stderr"
        exit 1
    }
    lo = 1e30; hi = -1e30
    for (k = 0; k < nbins; k++) {
        if (!count[k])
            continue
        m = sum[k] / count[k]
        printf "%.2f %+.5f %d\n", k * BIN, m, count[k]
        if (m < lo) lo = m
        if (m > hi) hi = m
        b2 += m * m
        used++
    }
    printf "summary %.5f %.5f %.5f %d\n", hi - lo, sqrt(b2 / used), sqrt(all2 / samples), samples
}
