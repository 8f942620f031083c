/*
 * fft_radix.h - the radix 2, 3, 4, 5, 7 and 8 DFTs that clxcorr's own FFT
 * kernels (fft_cpu.cl, fft_local.cl) build their passes from, in place on
 * arrays of R values held as real and imaginary parts.
 *
 * The including file defines `real` and FFT_T, the type of one value's part:
 * `real` for one line at a time (fft_local.cl), a vector of `real` for one
 * line per lane (fft_cpu.cl). dir = 1 forward (e^-i), -1 inverse.
 */
#ifndef CLX_FFT_RADIX_H
#define CLX_FFT_RADIX_H

/* In-place DFT of R values a[0..R-1] (re, im); dir = 1 forward (e^-i), -1 inverse. */
static inline void dft2(FFT_T *re, FFT_T *im)
{
    const FFT_T r0 = re[0], i0 = im[0];
    re[0] = r0 + re[1];
    im[0] = i0 + im[1];
    re[1] = r0 - re[1];
    im[1] = i0 - im[1];
}

static inline void dft4(FFT_T *re, FFT_T *im, real dir)
{
    const FFT_T sr0 = re[0] + re[2], si0 = im[0] + im[2];
    const FFT_T dr0 = re[0] - re[2], di0 = im[0] - im[2];
    const FFT_T sr1 = re[1] + re[3], si1 = im[1] + im[3];
    const FFT_T dr1 = re[1] - re[3], di1 = im[1] - im[3];
    /* -i dir (dr1 + i di1) = dir (di1 - i dr1) */
    re[0] = sr0 + sr1;
    im[0] = si0 + si1;
    re[2] = sr0 - sr1;
    im[2] = si0 - si1;
    re[1] = dr0 + dir * di1;
    im[1] = di0 - dir * dr1;
    re[3] = dr0 - dir * di1;
    im[3] = di0 + dir * dr1;
}

/* Radix 8 as two radix-4 DFTs of the even and the odd inputs: y_s = E_s +
 * w^s O_s, y_{s+4} = E_s - w^s O_s, w = exp(-2 pi i dir / 8). (One pass in
 * place of a radix-4 and a radix-2 one: a length of 200, the default
 * windows' padding, is 8 x 5 x 5.) */
static inline void dft8(FFT_T *re, FFT_T *im, real dir)
{
    const real h = 0.70710678118654752;     /* 1 / sqrt 2 */
    FFT_T er[4] = { re[0], re[2], re[4], re[6] }, ei[4] = { im[0], im[2], im[4], im[6] };
    FFT_T odr[4] = { re[1], re[3], re[5], re[7] }, odi[4] = { im[1], im[3], im[5], im[7] };
    dft4(er, ei, dir);
    dft4(odr, odi, dir);
    /* w O_1 = (1 - i dir) O_1 / sqrt 2, w^2 O_2 = -i dir O_2, w^3 O_3 = (-1 - i dir) O_3 / sqrt 2 */
    const FFT_T w1r = h * (odr[1] + dir * odi[1]), w1i = h * (odi[1] - dir * odr[1]);
    const FFT_T w2r = dir * odi[2], w2i = -dir * odr[2];
    const FFT_T w3r = h * (dir * odi[3] - odr[3]), w3i = -h * (odi[3] + dir * odr[3]);
    re[0] = er[0] + odr[0];
    im[0] = ei[0] + odi[0];
    re[4] = er[0] - odr[0];
    im[4] = ei[0] - odi[0];
    re[1] = er[1] + w1r;
    im[1] = ei[1] + w1i;
    re[5] = er[1] - w1r;
    im[5] = ei[1] - w1i;
    re[2] = er[2] + w2r;
    im[2] = ei[2] + w2i;
    re[6] = er[2] - w2r;
    im[6] = ei[2] - w2i;
    re[3] = er[3] + w3r;
    im[3] = ei[3] + w3i;
    re[7] = er[3] - w3r;
    im[7] = ei[3] - w3i;
}

/* Odd R: y_s = a_0 + sum_{r=1}^{(R-1)/2} cos(2 pi r s / R) (a_r + a_{R-r})
 *                   - i dir sin(2 pi r s / R) (a_r - a_{R-r}).
 * Radix 3 and 5 (every length of the default windows' padding has them)
 * are written out with their constants; a loop over s and r with the
 * table's index (r s) mod R ran as such, through the stack, on PoCL. */
static inline void dft3(FFT_T *re, FFT_T *im, real dir)
{
    const real c1 = -0.5, s1 = 0.86602540378443865;
    const FFT_T tr = re[1] + re[2], ti = im[1] + im[2], dr = re[1] - re[2], di = im[1] - im[2];
    const FFT_T br = re[0] + c1 * tr, bi = im[0] + c1 * ti;
    const FFT_T sr = dir * s1 * dr, si = dir * s1 * di;
    re[0] += tr;
    im[0] += ti;
    /* y_1 = b - i dir s1 d, y_2 = b + i dir s1 d */
    re[1] = br + si;
    im[1] = bi - sr;
    re[2] = br - si;
    im[2] = bi + sr;
}

static inline void dft5(FFT_T *re, FFT_T *im, real dir)
{
    const real c1 = 0.30901699437494742, c2 = -0.80901699437494742;
    const real s1 = 0.95105651629515357, s2 = 0.58778525229247313;
    const FFT_T t1r = re[1] + re[4], t1i = im[1] + im[4], t2r = re[2] + re[3], t2i = im[2] + im[3];
    const FFT_T t3r = re[1] - re[4], t3i = im[1] - im[4], t4r = re[2] - re[3], t4i = im[2] - im[3];
    const FFT_T b1r = re[0] + c1 * t1r + c2 * t2r, b1i = im[0] + c1 * t1i + c2 * t2i;
    const FFT_T b2r = re[0] + c2 * t1r + c1 * t2r, b2i = im[0] + c2 * t1i + c1 * t2i;
    const FFT_T d1r = dir * (s1 * t3r + s2 * t4r), d1i = dir * (s1 * t3i + s2 * t4i);
    const FFT_T d2r = dir * (s2 * t3r - s1 * t4r), d2i = dir * (s2 * t3i - s1 * t4i);
    re[0] += t1r + t2r;
    im[0] += t1i + t2i;
    /* y_1 = b1 - i d1, y_4 = b1 + i d1, y_2 = b2 - i d2, y_3 = b2 + i d2 (d with dir) */
    re[1] = b1r + d1i;
    im[1] = b1i - d1r;
    re[4] = b1r - d1i;
    im[4] = b1i + d1r;
    re[2] = b2r + d2i;
    im[2] = b2i - d2r;
    re[3] = b2r - d2i;
    im[3] = b2i + d2r;
}

/* cos and sin of 2 pi j / 7, j = 0..6 */
__constant real cos_7[7] = { 1.0, 0.62348980185873353, -0.22252093395631440, -0.90096886790241913,
                             -0.90096886790241913, -0.22252093395631440, 0.62348980185873353 };
__constant real sin_7[7] = { 0.0, 0.78183148246802981, 0.97492791218182361, 0.43388373911755812,
                             -0.43388373911755812, -0.97492791218182361, -0.78183148246802981 };

/* Radix 7 (rare in the padding's lengths) by the odd-R formula above, its
 * tables indexed (r s) mod 7. */
static inline void dft7(FFT_T *re, FFT_T *im, real dir)
{
    FFT_T pr[4], pi_[4], mr[4], mi[4];
    for (int r = 1; r <= 3; r++) {
        pr[r] = re[r] + re[7 - r];
        pi_[r] = im[r] + im[7 - r];
        mr[r] = re[r] - re[7 - r];
        mi[r] = im[r] - im[7 - r];
    }
    FFT_T yr[7], yi[7];
    for (int s = 0; s < 7; s++) {
        FFT_T accr = re[0], acci = im[0];
        for (int r = 1; r <= 3; r++) {
            const real c = cos_7[(r * s) % 7], sn = dir * sin_7[(r * s) % 7];
            accr += c * pr[r] + sn * mi[r];
            acci += c * pi_[r] - sn * mr[r];
        }
        yr[s] = accr;
        yi[s] = acci;
    }
    for (int s = 0; s < 7; s++) {
        re[s] = yr[s];
        im[s] = yi[s];
    }
}

#endif
