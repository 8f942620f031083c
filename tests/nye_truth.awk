# tests/nye_truth.awk - how far `clxcorr gnd`'s Nye components are from a
# truth file's (tests/data/hrebsd/bent_truth.csv, the exact curvature of a
# bent lattice): the largest and the RMS relative error over the five
# components (alpha12, alpha13, alpha21, alpha23, alpha33) and the points.
#
#   awk -F, -f tests/nye_truth.awk TRUTH.csv GND.csv

{ sub(/\r$/, "") }

FNR == 1 { for (k = 1; k <= NF; k++) col[FILENAME, $k] = k; next }
NR == FNR { t[$1 "," $2] = $0; next }
{ split(t[$1 "," $2], v, ",")
  n = split("alpha12 alpha13 alpha21 alpha23 alpha33", names, " ")
  for (k = 1; k <= n; k++) { a = $col[FILENAME, names[k]]; b = v[col[ARGV[1], names[k]]]
      e = (a - b) / (b < 0 ? -b : b); if (e < 0) e = -e; if (e > worst) worst = e; s += e * e; m++ } }
END { printf "Nye components: largest relative error %.2f %%, RMS %.2f %%, %d values\n", 100 * worst, 100 * sqrt(s / m), m }
