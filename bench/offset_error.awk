# bench/offset_error.awk - offsets against the truth of a synthetic set:
#   awk -F, -f bench/offset_error.awk SET/truth.csv RESULT.csv
# truth.csv: image,region,x,y,dx,dy (clxcorr-samples); RESULT.csv: clxcorr
# offsets' CSV (image path, region, x, y, dx, dy, peak, flags, ...), matched
# by the image's file name and the region. Every matched row counts, flagged
# or not. Prints one line:
#   rms R px  rms/axis A px  max M px  rows N  flagged K
# rms: root mean square of the error vector's length, sqrt(mean(ex^2 + ey^2));
# rms/axis: over both components taken one by one (rms / sqrt 2); max: the
# longest error vector. Exits 1 when no row matched.
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
    ex = $5 - t[1]
    ey = $6 - t[2]
    e2 = ex * ex + ey * ey
    sum += e2
    rows++
    if (e2 > worst)
        worst = e2
    if ($8 != 0)
        flagged++
}
END {
    if (rows == 0) {
        print "no rows matched the truth"
        exit 1
    }
    printf "rms %.4f px  rms/axis %.4f px  max %.4f px  rows %d  flagged %d\n", sqrt(sum / rows),
           sqrt(sum / (2 * rows)), sqrt(worst), rows, flagged + 0
}
