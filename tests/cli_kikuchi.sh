#!/bin/sh
# clxcorr-samples --kikuchi, the HR-EBSD set of doc/hrebsd-conventions.md:
# F = I gives the reference byte for byte; truth.csv's derived columns and
# pattern centres follow from beta_s and the scan step as the doc says; bad
# options are one line and no files. Then through `clxcorr offsets`: an
# in-plane rotation of 0.5 degrees about the screen normal z_d, and a
# general small beta, move every window by where F r meets the screen minus
# where r does, within 0.05 px.
. "$TESTS_SRCDIR/lib.sh"

K() {
    "$CLXCORR_SAMPLES" --kikuchi "$@"
}

# --- F = I: every image is the reference, byte for byte ------------------
K --out "$TMP/id" --size 96x80 --count 2 --grid 2x2 --window 32x32 --margin 4 \
    --deform 0,0,0,0,0,0,0,0,0 || exit 99
cmp -s "$TMP/id/reference.tif" "$TMP/id/image_0001.tif" && cmp -s "$TMP/id/reference.tif" "$TMP/id/image_0002.tif" \
    && pass "F = I: images identical to reference.tif" || fail "F = I: an image differs from reference.tif"
[ "$(grep -vc '^#' "$TMP/id/regions.txt")" -eq 4 ] && pass "regions.txt: 2x2 windows" \
    || fail "regions.txt: $(cat "$TMP/id/regions.txt")"

# --- Determinism, and the defaults' sizes ---------------------------------
K --out "$TMP/a" --count 4 --strain 0.003 --rotation 1 --step 10,5 --scan-cols 2 --noise 500 || exit 99
K --out "$TMP/b" --count 4 --strain 0.003 --rotation 1 --step 10,5 --scan-cols 2 --noise 500 || exit 99
same=1
for f in reference.tif image_0001.tif image_0004.tif regions.txt truth.csv geometry.txt; do
    cmp -s "$TMP/a/$f" "$TMP/b/$f" || same=0
done
[ "$same" -eq 1 ] && pass "same options, same files" || fail "two runs with the same options differ"
[ "$(grep -vc '^#' "$TMP/a/regions.txt")" -eq 25 ] && grep -q '^# 5 x 5 grid of 60 x 60 windows in a 300 x 300 image, margin 10$' "$TMP/a/regions.txt" \
    && pass "defaults: 5x5 windows of 60x60 in 300x300, margin 10" || fail "regions.txt: $(head -2 "$TMP/a/regions.txt")"

# --- truth.csv: derived columns -------------------------------------------
head -1 "$TMP/a/truth.csv" | grep -qx 'image,b11,b12,b13,b21,b22,b23,b31,b32,b33,e11,e12,e13,e22,e23,e33,f11,f12,f13,f22,f23,f33,w1,w2,w3,pcx,pcy,pcz' \
    && pass "truth.csv header" || fail "truth.csv header: $(head -1 "$TMP/a/truth.csv")"
# b: $2..$10 (b11 b12 b13 b21 b22 b23 b31 b32 b33), e: $11..$16, f: $17..$22, w: $23..$25.
if awk -F, 'function bad(what) { print $1 ": " what; n++ }
    function off(a, b) { return (a - b > 1e-9 || b - a > 1e-9) }
    NR == 1 { next }
    {
        rows++
        if (off($11 + $14 + $16, 0)) bad("deviatoric trace " ($11 + $14 + $16))
        if (off($17, $2) || off($20, $6) || off($22, $10)) bad("f diagonal is not b diagonal")
        if (off($18, ($3 + $5) / 2) || off($19, ($4 + $8) / 2) || off($21, ($7 + $9) / 2)) bad("f shears")
        t = ($2 + $6 + $10) / 3
        if (off($11, $17 - t) || off($14, $20 - t) || off($16, $22 - t)) bad("e diagonal")
        if (off($12, $18) || off($13, $19) || off($15, $21)) bad("e shears")
        if (off($23, ($9 - $7) / 2) || off($24, ($4 - $8) / 2) || off($25, ($5 - $3) / 2)) bad("w")
        if ($2 == 0 && $3 == 0) bad("beta not drawn")
    }
    END { exit n > 0 || rows != 4 }' "$TMP/a/truth.csv" >"$TMP/bad"; then
    pass "truth.csv: e deviatoric, f = sym(b), w = (W32, W13, W21) of antisym(b)"
else
    fail "truth.csv: $(head -3 "$TMP/bad")"
fi

# Pattern centres: image k at scan point ((k-1)/2, (k-1) mod 2), 10 um x 5 um
# steps, 50 um pixels, moved as kikuchipy's EBSDDetector.extrapolate_pc
# moves them (alpha = 90 - sigma + theta = 30 degrees): PCx - X / (50 W),
# PCy - Y cos(alpha) / (50 H), PCz + Y sin(alpha) / (50 H); kikuchipy 0.13.1
# gives (0.49933333, 0.35, 0.65) and (0.5, 0.34971132, 0.65016667) for the
# second and third points.
if awk -F, 'NR == 1 { next }
    {
        k = NR - 1; col = (k - 1) % 2; row = int((k - 1) / 2)
        X = 10 * col; Y = 5 * row; a = 30 * atan2(0, -1) / 180
        px = 0.5 - X / 50 / 300; py = 0.35 - Y * cos(a) / 50 / 300; pz = 0.65 + Y * sin(a) / 50 / 300
        d = ($26 - px) ^ 2 + ($27 - py) ^ 2 + ($28 - pz) ^ 2
        if (d > 1e-18) { print $1 ": " $26 "," $27 "," $28 " expected " px "," py "," pz; n++ }
    }
    END { exit n > 0 }' "$TMP/a/truth.csv" >"$TMP/bad"; then
    pass "truth.csv: pattern centres moved by the scan step"
else
    fail "truth.csv pattern centres: $(head -3 "$TMP/bad")"
fi
for key in width height pcx pcy pcz sample_tilt detector_tilt step_x step_y pixel_size; do
    grep -q "^$key [-0-9.e]*$" "$TMP/a/geometry.txt" || fail "geometry.txt has no '$key'"
done
grep -qx "pcy 0.35" "$TMP/a/geometry.txt" && grep -qx "step_y 5" "$TMP/a/geometry.txt" \
    && pass "geometry.txt" || fail "geometry.txt: $(cat "$TMP/a/geometry.txt")"

# --- Bad options: one line, exit 1, no files -------------------------------
# bad NAME PATTERN ARGS...
bad() {
    name=$1 pattern=$2
    shift 2
    rm -rf "$TMP/bad_out"
    "$CLXCORR_SAMPLES" --out "$TMP/bad_out" "$@" >"$TMP/out" 2>"$TMP/err"
    status=$?
    if [ "$status" -ne 1 ]; then
        fail "$name: exit status $status"
    elif [ "$(wc -l <"$TMP/err")" -ne 1 ] || ! grep -Eq -- "$pattern" "$TMP/err"; then
        fail "$name: stderr: $(cat "$TMP/err")"
    elif [ -e "$TMP/bad_out" ]; then
        fail "$name: wrote $(ls "$TMP/bad_out")"
    else
        pass "$name: $(cat "$TMP/err")"
    fi
}
bad "--pc of two numbers" "--pc: '0.5,0.35' is not 3 comma-separated numbers" --kikuchi --pc 0.5,0.35
bad "--pc with PCz 0" "--pc: the detector distance PCz" --kikuchi --pc 0.5,0.35,0
bad "--deform of 8 numbers" "--deform: .* is not 9 comma-separated numbers" --kikuchi --deform 0,0,0,0,0,0,0,0
bad "--deform singular" "--deform: I \\+ beta .* is singular" --kikuchi --deform -0.5,0.5,0,0.5,-0.5,0,0,0,0
bad "--euler not a number" "--euler: 'a,b,c'" --kikuchi --euler a,b,c
bad "--step of one number" "--step: '1' is not 2 comma-separated numbers" --kikuchi --step 1
bad "--pixel-size 0" "--pixel-size: '0' is not positive" --kikuchi --pixel-size 0
# A detector tilted past the sample's tilt by more than 90 - sigma turns the
# rows' beam shift towards the screen (alpha = 90 - 70 - 30 < 0).
bad "source behind the screen" "moves image 2's source behind the screen" --kikuchi --count 2 --scan-cols 1 \
    --detector-tilt -30 --step 0,5000 --pixel-size 1
bad "--strain too large" "--strain: '0.5' is not a number in \\[0, 0.1\\]" --kikuchi --strain 0.5
bad "--pc without --kikuchi" "--pc is an option of --kikuchi only" --pc 0.5,0.5,0.5
bad "--max-shift with --kikuchi" "--max-shift is not an option of --kikuchi" --kikuchi --max-shift 2
bad "--kind with --kikuchi" "--kind is not an option of --kikuchi" --kikuchi --kind speckle

[ "$failures" -eq 0 ] || finish
need_device

# --- Through clxcorr offsets ------------------------------------------------
# predict BETA_S: the exact shift of each window centre, "x y dx dy" per line,
# for the default geometry (300 x 300, PC 0.5,0.35,0.65, tilts 70 and 10):
# beta_d = R_ds^T beta_s R_ds, F = I + beta_d, r = (x - xpc, ypc - y, L)
# (kikuchipy's detector frame: y up the pattern), the shift in the frame
# L (F r)_xy / (F r)_z - r_xy, its y negated for pixels.
predict() {
    awk -v beta="$1" 'BEGIN {
        split(beta, b, ","); a = 60 * atan2(0, -1) / 180
        # R_ds of kikuchipy, a = sigma - theta: [[0,-sin a,cos a],[1,0,0],[0,cos a,sin a]]
        R[1,1] = 0; R[1,2] = -sin(a); R[1,3] = cos(a)
        R[2,1] = 1; R[2,2] = 0; R[2,3] = 0
        R[3,1] = 0; R[3,2] = cos(a); R[3,3] = sin(a)
        for (i = 1; i <= 3; i++) for (j = 1; j <= 3; j++) {
            s = 0
            for (k = 1; k <= 3; k++) for (l = 1; l <= 3; l++) s += R[k,i] * b[3 * (k - 1) + l] * R[l,j]
            F[i,j] = s + (i == j)
        }
        xpc = 0.5 * 300 - 0.5; ypc = 0.35 * 300 - 0.5; L = 0.65 * 300
    }
    NF == 4 && $1 !~ /^#/ {
        x = $1 + ($3 - 1) / 2; y = $2 + ($4 - 1) / 2
        r[1] = x - xpc; r[2] = ypc - y; r[3] = L
        for (i = 1; i <= 3; i++) q[i] = F[i,1] * r[1] + F[i,2] * r[2] + F[i,3] * r[3]
        printf "%.1f %.1f %.6f %.6f\n", x, y, L * q[1] / q[3] - r[1], -(L * q[2] / q[3] - r[2])
    }' "$TMP/rot/regions.txt"
}

# check NAME BETA_S: the measured offsets of image_0001 against predict's.
check() {
    name=$1
    rm -rf "$TMP/rot"
    K --out "$TMP/rot" --count 1 --deform "$2" || exit 99
    "$CLXCORR" offsets -q --regions "$TMP/rot/regions.txt" "$TMP/rot/reference.tif" "$TMP/rot/image_0001.tif" \
        >"$TMP/rot.csv" || { fail "$name: clxcorr offsets failed"; return; }
    predict "$2" >"$TMP/predicted"
    if awk -F, 'NR == FNR { split($0, p, " "); px[FNR] = p[1]; py[FNR] = p[2]; pdx[FNR] = p[3]; pdy[FNR] = p[4]; next }
        FNR == 1 { next }
        {
            n++; i = FNR - 1
            if ($3 != px[i] || $4 != py[i]) { print "window " i " at " $3 "," $4 " vs " px[i] "," py[i]; bad++; next }
            ex = $5 - pdx[i]; ey = $6 - pdy[i]; e = sqrt(ex * ex + ey * ey)
            if (e > worst) worst = e
            if (pdx[i] ^ 2 + pdy[i] ^ 2 > big) big = pdx[i] ^ 2 + pdy[i] ^ 2
            if (e > 0.05 || $8 != 0) { print "window " i ": " $5 "," $6 " flags " $8 " vs " pdx[i] "," pdy[i]; bad++ }
        }
        END { printf "%d windows, shifts up to %.2f px, worst error %.4f px\n", n, sqrt(big), worst; exit bad > 0 || n != 25 }' \
        "$TMP/predicted" "$TMP/rot.csv" >"$TMP/bad"; then
        pass "$name: $(tail -1 "$TMP/bad")"
    else
        fail "$name: $(head -4 "$TMP/bad")"
    fi
}

# A rotation by 0.5 degrees about z_d: F_d = R_z(0.5 deg), so a window at r
# moves by ((c - 1) r_x - s r_y, s r_x + (c - 1) r_y), about 0.5 deg (-r_y, r_x)
# in the detector frame (anticlockwise on the pattern as stored, seen from
# behind the screen); in the sample frame beta_s = R_ds (F_d - I) R_ds^T.
beta_rot=$(awk 'BEGIN {
    t = 0.5 * atan2(0, -1) / 180; c = cos(t); s = sin(t); a = 60 * atan2(0, -1) / 180
    R[1,1] = 0; R[1,2] = -sin(a); R[1,3] = cos(a); R[2,1] = 1; R[2,2] = 0; R[2,3] = 0
    R[3,1] = 0; R[3,2] = cos(a); R[3,3] = sin(a)
    B[1,1] = c - 1; B[1,2] = -s; B[2,1] = s; B[2,2] = c - 1
    out = ""
    for (i = 1; i <= 3; i++) for (j = 1; j <= 3; j++) {
        v = 0
        for (k = 1; k <= 2; k++) for (l = 1; l <= 2; l++) v += R[i,k] * B[k,l] * R[j,l]
        out = out (out == "" ? "" : ",") sprintf("%.15g", v)
    }
    print out
}')
check "rotation 0.5 deg about z_d" "$beta_rot"
# A general small beta_s: strain and rotation of about 1e-3.
check "general beta_s" "0.001,-0.0005,0.00075,0.0015,-0.0006,0.0004,-0.00125,0.0005,0.00025"
finish
