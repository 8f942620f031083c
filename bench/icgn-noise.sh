#!/bin/sh
# bench/icgn-noise.sh - the accurate mode (IC-GN, the default) against noise:
# for Gaussian noise of 0 to 4 % of the range on the speckle set
# (clxcorr-samples --kind speckle: 512 x 512, 36 windows of 64 x 64, shifts
# of 0 to 1 px in 0.05 px steps) and of 0 to 500 counts on the Kikuchi-like
# set (24 images, 50 windows of 100 x 100, strain up to 0.2 %), the RMS
# error per axis, the RMS of the sigma_dx, sigma_dy the rows report and
# their ratio (1: the reported uncertainty is the scatter), the iterations,
# and, for the speckle, the Cramer-Rao bound of a rigid shift with both
# images noisy, sqrt(2) sigma / sqrt(sum (df/dx)^2) over each window of the
# noise-free reference (exact derivative by FFT; needs numpy and tifffile,
# else "-"). The correlation refinement (before IC-GN) beside it.
#
#   bench/icgn-noise.sh BUILD_DIR [OUT_DIR]
set -eu
build=${1:?usage: bench/icgn-noise.sh BUILD_DIR [OUT_DIR]}
out=${2:-/tmp/clxcorr-icgn-noise}
clx="$build/src/clxcorr"
mkdir -p "$out"
echo "device: $("$clx" devices | head -1)"

# stats TRUTH CSV: "rms/axis sigma-rms ratio mean-iterations flagged"
stats() {
    awk -F, 'NR == FNR { if (FNR > 1) t[$1 "," $2] = $5 "," $6; next }
        FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        { n = split($1, p, "/"); split(t[p[n] "," $2], w, ",")
          ex = $5 - w[1]; ey = $6 - w[2]; se += ex * ex + ey * ey; rows++
          if ("sigma_dx" in col) sp += $col["sigma_dx"] ^ 2 + $col["sigma_dy"] ^ 2
          it += $col["iterations"]; if ($8 != 0) flagged++ }
        END { printf "%.5f %s %s %.2f %d", sqrt(se / (2 * rows)), sp ? sprintf("%.5f", sqrt(sp / (2 * rows))) : "-",
                     sp ? sprintf("%.3f", sqrt(se / sp)) : "-", it / rows, flagged }' "$1" "$2"
}

crlb() {
    python3 - "$1" 2>/dev/null <<'EOF' || echo "-"
import sys
import numpy as np, tifffile
d = sys.argv[1]
ref = tifffile.imread(d + "/reference.tif").astype(float)
kx = np.fft.fftfreq(ref.shape[1]) * 2 * np.pi
gx = np.real(np.fft.ifft2(np.fft.fft2(ref) * 1j * kx[None, :]))
regions = np.loadtxt(d + "/regions.txt", comments="#").astype(int)
s = [1 / np.sqrt((gx[y:y + h, x:x + w] ** 2).sum()) for x, y, w, h in regions]
print("%.6g" % np.sqrt(np.mean(np.square(s))))   # times sqrt(2) sigma
EOF
}

printf '%-8s %-7s %-12s %9s %9s %7s %6s %7s %9s\n' set noise refinement "rms/axis" "sigma" ratio iters flagged "CR bound"
"$build/samples/clxcorr-samples" --out "$out/speckle-0" --kind speckle --step 0.05 --count 21 >/dev/null
unit=$(crlb "$out/speckle-0")
for noise in 0 290 580 1160 2320; do
    d=$out/speckle-$noise
    "$build/samples/clxcorr-samples" --out "$d" --kind speckle --step 0.05 --count 21 --noise $noise >/dev/null 2>&1
    bound=$(awk -v u="$unit" -v n=$noise 'BEGIN { if (u == "-") print "-"; else printf "%.5f", sqrt(2) * n * u }')
    for r in icgn correlation; do
        "$clx" offsets -q --refine $r --regions "$d/regions.txt" "$d/reference.tif" "$d"/image_*.tif >"$d.$r.csv"
        # shellcheck disable=SC2046
        printf '%-8s %-7s %-12s %9s %9s %7s %6s %7s %9s\n' speckle "$noise" $r $(stats "$d/truth.csv" "$d.$r.csv") \
            "$bound"
    done
done
for noise in 0 200 500; do
    d=$out/kikuchi-$noise
    "$build/samples/clxcorr-samples" --out "$d" --count 24 --noise $noise >/dev/null 2>&1
    for r in icgn correlation; do
        "$clx" offsets -q --refine $r --regions "$d/regions.txt" "$d/reference.tif" "$d"/image_*.tif >"$d.$r.csv"
        # shellcheck disable=SC2046
        printf '%-8s %-7s %-12s %9s %9s %7s %6s %7s %9s\n' kikuchi "$noise" $r $(stats "$d/truth.csv" "$d.$r.csv") -
    done
done
