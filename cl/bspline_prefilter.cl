/*
 * bspline_prefilter.cl - the B-spline coefficients of a batch of images,
 * for the B-spline interpolations of interp.h (INTERP 2 cubic, 3 quintic):
 * the c whose spline sum_k c[k] beta(x - k) passes through every pixel.
 * Inverting that discrete convolution is Unser's recursive filter (Unser,
 * Aldroubi, Eden 1993; Thevenaz, Blu, Unser 2000): the gain, then per pole
 * z of the B-spline a causal and an anticausal first-order recursion,
 * exact for a signal mirrored about its edge samples ("101"), which is how
 * sample_windows reads coefficients outside the image. Separable: rows,
 * then columns.
 *
 *  - bspline_rows: one work-item per row of the batch (the images' rows
 *    follow one another in memory, so the batch is one tall image); reads
 *    `in`, writes `out`.
 *  - bspline_columns: one work-item per column of one image, in place;
 *    neighbouring work-items step through neighbouring columns, so every
 *    step of the recursion is one coalesced row of reads.
 * Images: w x h reals each, rows tightly packed, one after another.
 * NDRange: bspline_rows global (h * images) rounded up to BSPLINE_WG;
 * bspline_columns global (w, images) rounded up to (BSPLINE_WG, 1).
 */
#include "filter_common.h"

#ifndef INTERP
#error "define INTERP (2: cubic B-spline, 3: quintic B-spline)"
#endif

#if INTERP == 2
#define NPOLES 1
#define GAIN 6              /* (1 - z)(1 - 1/z) over the poles: beta3's 1/6 + 4/6 z + 1/6 z^2 inverted */
#elif INTERP == 3
#define NPOLES 2
#define GAIN 120            /* beta5's 1, 26, 66, 26, 1 over 120 */
#else
#error "bspline_prefilter.cl: INTERP must be 2 (cubic B-spline) or 3 (quintic B-spline)"
#endif

/* The poles: the roots inside the unit circle of the B-spline's samples'
 * z-transform (z^2 + 4 z + 1; z^4 + 26 z^3 + 66 z^2 + 26 z + 1). */
#define POLE_CUBIC (-0.267949192431122706472553658494)              /* sqrt(3) - 2 */
#define POLE_QUINTIC_1 (-0.430575347099973791851434783493520)
#define POLE_QUINTIC_2 (-0.043096288203264653822712376822550)

/* Where z^k falls below it, the causal start's sum over the mirrored line
 * stops: the working precision's resolution. */
#if USE_DOUBLE
#define HORIZON_TOL 1e-16
#else
#define HORIZON_TOL 1e-8
#endif

/*
 * The causal recursion's first value, sum over k >= 0 of z^k s[k] on the
 * mirrored line: truncated where z^k no longer matters, or, on a line
 * shorter than that, summed exactly over the mirror's period.
 */
static real causal_start(__global const real *s, int stride, int n, real z)
{
    const int horizon = (int)ceil(log((real)HORIZON_TOL) / log(fabs(z)));
    real zn = z, sum = s[0];
    if (horizon < n) {
        for (int k = 1; k < horizon; k++) {
            sum += zn * s[(size_t)k * stride];
            zn *= z;
        }
        return sum;
    }
    const real iz = 1 / z;
    real z2n = pown(z, n - 1);
    sum = s[0] + z2n * s[(size_t)(n - 1) * stride];
    z2n *= z2n * iz;
    for (int k = 1; k <= n - 2; k++) {
        sum += (zn + z2n) * s[(size_t)k * stride];
        zn *= z;
        z2n *= iz;
    }
    return sum / (1 - zn * zn);
}

/* One line of n values, `stride` apart, from samples times GAIN to
 * coefficients, in place. A single sample is its own coefficient (the
 * mirrored line is flat). */
static void line_to_coefficients(__global real *c, int stride, int n)
{
    if (n == 1) {
        c[0] /= GAIN;
        return;
    }
#if NPOLES == 1
    const real poles[NPOLES] = { POLE_CUBIC };
#else
    const real poles[NPOLES] = { POLE_QUINTIC_1, POLE_QUINTIC_2 };
#endif
    for (int p = 0; p < NPOLES; p++) {
        const real z = poles[p];
        c[0] = causal_start(c, stride, n, z);
        for (int k = 1; k < n; k++)
            c[(size_t)k * stride] += z * c[(size_t)(k - 1) * stride];
        /* The anticausal recursion's start, exact on the mirrored line. */
        const size_t last = (size_t)(n - 1) * stride;
        c[last] = z / (z * z - 1) * (z * c[last - stride] + c[last]);
        for (int k = n - 2; k >= 0; k--)
            c[(size_t)k * stride] = z * (c[(size_t)(k + 1) * stride] - c[(size_t)k * stride]);
    }
}

/* Rows: `rows` rows of w samples from `in` to coefficients along x in `out`. */
__kernel void bspline_rows(__global const real *in, __global real *out, int w, int rows)
{
    const int r = get_global_id(0);
    if (r >= rows)
        return;
    __global const real *s = in + (size_t)r * w;
    __global real *c = out + (size_t)r * w;
    for (int x = 0; x < w; x++)
        c[x] = GAIN * s[x];
    line_to_coefficients(c, 1, w);
}

/* Columns: each image's columns to coefficients along y, in place (the
 * gain is per pass: each direction inverts its own convolution). */
__kernel void bspline_columns(__global real *c, int w, int h, int images)
{
    const int x = get_global_id(0), img = get_global_id(1);
    if (x >= w || img >= images)
        return;
    __global real *col = c + (size_t)img * w * h + x;
    for (int y = 0; y < h; y++)
        col[(size_t)y * w] *= GAIN;
    line_to_coefficients(col, w, h);
}
