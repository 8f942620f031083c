/*
 * bspline_prefilter.cl - the B-spline coefficients of a batch of images,
 * for the B-spline interpolations of interp.h (INTERP 2 cubic, 3 quintic):
 * the c whose spline sum_k c[k] beta(x - k) passes through every pixel.
 *
 * Inverting that discrete convolution is classically Unser's recursive
 * filter (Unser, Aldroubi, Eden 1993; Thevenaz, Blu, Unser 2000): a causal
 * and an anticausal first-order recursion per pole. That recursion is
 * serial along each line, and as one work-item per row or column it left
 * a GPU nearly idle (it halved accurate mode's patterns/s on an H100).
 * The inverse filter's impulse response is symmetric and decays like
 * |z|^k (cubic z = sqrt(3) - 2; quintic |z| = 0.431 and 0.043), so here it
 * is a separable FIR instead: the response truncated at `radius` taps each
 * side, where the neglected tail is below the working precision's
 * resolution (ops/bspline_prefilter.c computes and normalises the taps),
 * one work-item per output value. Lines are mirrored about their edge
 * samples ("101": -1 -> 1, n -> n - 2, folded as often as needed on lines
 * shorter than the filter), which is how sample_windows reads coefficients
 * outside the image, and on that mirrored line the truncated FIR agrees
 * with the exact recursion to the working precision.
 *
 *  - bspline_rows: rows [first_row, first_row + rows) of `in` (the batch's
 *    images follow one another in memory, so the batch is one tall image)
 *    filtered along x into `out` from its start.
 *  - bspline_columns: `rows` rows (whole images of h rows) of `in` filtered
 *    along y into `out` from image `first`. Neighbouring work-items take
 *    neighbouring columns, so every tap is one coalesced row of reads.
 * taps[0..radius]: taps[k] weights the samples k to either side.
 * Images: w x h reals each, rows tightly packed, one after another.
 *  - bspline_rows_vector, bspline_columns_vector: the same for CPU devices,
 *    8 consecutive outputs of a row per work-item with explicit vectors (a
 *    CPU runtime runs fir()'s tap loop scalar); outputs whose taps reach
 *    past a line's ends take fir() one by one.
 * NDRange: both global (w, rows) rounded up to (BSPLINE_WG, 1); the vector
 * kernels global (ceil(w / 8), rows), the columns' (ceil(w / 8),
 * ceil(rows / BSPLINE_K)) (8 consecutive rows each), any local.
 */
#include "filter_common.h"

#ifndef INTERP
#error "define INTERP (2: cubic B-spline, 3: quintic B-spline)"
#endif
#if INTERP != 2 && INTERP != 3
#error "bspline_prefilter.cl: INTERP must be 2 (cubic B-spline) or 3 (quintic B-spline)"
#endif

/* mirror_index (filter_common.h) folds an index into a line of n mirrored
 * about its edge samples ("101"), as interp.h's tap_index reads
 * coefficients. */

/* The FIR at position i of a line of n values `stride` apart: the
 * smallest taps first, each pair of mirrored samples together. */
static real fir(__global const real *s, size_t stride, int i, int n, __constant const real *taps, int radius)
{
    real sum = 0;
    if (i >= radius && i + radius < n) {
        for (int k = radius; k >= 1; k--)
            sum += taps[k] * (s[(size_t)(i - k) * stride] + s[(size_t)(i + k) * stride]);
    } else {
        for (int k = radius; k >= 1; k--)
            sum += taps[k] * (s[(size_t)mirror_index(i - k, n) * stride] + s[(size_t)mirror_index(i + k, n) * stride]);
    }
    return sum + taps[0] * s[(size_t)i * stride];
}

/* Rows: rows [first_row, first_row + rows) of `in`, w samples each, to
 * coefficients along x in `out`'s first `rows` rows. */
__kernel void bspline_rows(__global const real *in, __global real *out, __constant const real *taps, int radius,
                           int w, int rows, int first_row)
{
    const int x = get_global_id(0), r = get_global_id(1);
    if (x >= w || r >= rows)
        return;
    out[(size_t)r * w + x] = fir(in + ((size_t)first_row + r) * w, 1, x, w, taps, radius);
}

/* Columns: the whole images of h rows in `in`'s first `rows` rows to
 * coefficients along y in `out` from image `first` on (the gain is per
 * pass: each direction inverts its own convolution). */
__kernel void bspline_columns(__global const real *in, __global real *out, __constant const real *taps, int radius,
                              int w, int h, int rows, int first)
{
    const int x = get_global_id(0), r = get_global_id(1);
    if (x >= w || r >= rows)
        return;
    const int img = r / h, y = r - img * h;
    __global const real *col = in + (size_t)img * w * h + x;
    out[((size_t)first * h + r) * w + x] = fir(col, (size_t)w, y, h, taps, radius);
}

/* The vector column pass's rows per work-item: the rows their taps share
 * stay in L1 from one output to the next. */
#define BSPLINE_K 8

#if USE_DOUBLE
typedef double8 vreal;
#else
typedef float8 vreal;
#endif

__kernel void bspline_rows_vector(__global const real *in, __global real *out, __constant const real *taps,
                                  int radius, int w, int rows, int first_row)
{
    const int x0 = get_global_id(0) * 8, r = get_global_id(1);
    if (x0 >= w || r >= rows)
        return;
    __global const real *line = in + ((size_t)first_row + r) * w;
    __global real *dst = out + (size_t)r * w;
    if (x0 >= radius && x0 + 8 + radius <= w) {
        vreal sum = 0;
        for (int k = radius; k >= 1; k--)
            sum += taps[k] * (vload8(0, line + x0 - k) + vload8(0, line + x0 + k));
        vstore8(sum + taps[0] * vload8(0, line + x0), 0, dst + x0);
        return;
    }
    for (int x = x0; x < x0 + 8 && x < w; x++)
        dst[x] = fir(line, 1, x, w, taps, radius);
}

__kernel void bspline_columns_vector(__global const real *in, __global real *out, __constant const real *taps,
                                     int radius, int w, int h, int rows, int first)
{
    const int x0 = get_global_id(0) * 8, r0 = get_global_id(1) * BSPLINE_K;
    if (x0 >= w)
        return;
    for (int r = r0; r < r0 + BSPLINE_K && r < rows; r++) {
        const int img = r / h, y = r - img * h;
        __global const real *plane = in + (size_t)img * w * h;
        __global real *dst = out + ((size_t)first * h + r) * w;
        if (x0 + 8 > w) {
            for (int x = x0; x < w; x++)
                dst[x] = fir(plane + x, (size_t)w, y, h, taps, radius);
            continue;
        }
        vreal sum = 0;
        for (int k = radius; k >= 1; k--)
            sum += taps[k] * (vload8(0, plane + (size_t)mirror_index(y - k, h) * w + x0) +
                              vload8(0, plane + (size_t)mirror_index(y + k, h) * w + x0));
        vstore8(sum + taps[0] * vload8(0, plane + (size_t)y * w + x0), 0, dst + x0);
    }
}

#if INTERP == 2
/*
 * The recursive form, for CPU devices and the cubic B-spline (its one
 * pole): Unser's causal and anticausal first-order recursions, about four
 * operations a sample where the FIR takes 2 radius + 1 (a CPU is not short
 * of serial work, as a GPU is). Lines mirror about their edge samples, as
 * for the FIR; the causal recursion starts from its sum over the mirrored
 * line, cut after `horizon` samples (the FIR's radius: the same tail) or
 * exact on lines no longer than that. Each work-item runs 8 lines at once
 * in the lanes of a vector.
 *  - bspline_rows_recursive: rows [first_row, first_row + rows) of `in`
 *    into the same rows of `out`, 8 rows a work-item.
 *  - bspline_columns_recursive: in place in `out`, images [first, first +
 *    nimages), 8 columns a work-item.
 * NDRange: (ceil(rows / 8)) and (ceil(w / 8), nimages), any local.
 */
#define POLE ((real)-0.267949192431122706)   /* sqrt(3) - 2 */
#define GAIN ((real)6)                        /* (1 - z)(1 - 1 / z) */

/* Sample i of the 8 lines: lane l at p + i * step + lane[l]; `contiguous`
 * when the lanes are 8 neighbouring values. */
static vreal line_get(__global const real *p, size_t step, const int *lane, int contiguous, int i)
{
    __global const real *q = p + (size_t)i * step;
    if (contiguous)
        return vload8(0, q);
    return (vreal)(q[lane[0]], q[lane[1]], q[lane[2]], q[lane[3]], q[lane[4]], q[lane[5]], q[lane[6]], q[lane[7]]);
}

/* Stores sample i of the first nl lines. */
static void line_put(__global real *p, size_t step, const int *lane, int contiguous, int nl, int i, vreal v)
{
    __global real *q = p + (size_t)i * step;
    if (contiguous) {
        vstore8(v, 0, q);
        return;
    }
    real t[8];
    vstore8(v, 0, t);
    for (int l = 0; l < nl; l++)
        q[lane[l]] = t[l];
}

/* The coefficients of 8 lines of n samples from src into dst (which may
 * be src: each sample is read before it is written). */
static void recursive_lines(__global const real *src, __global real *dst, size_t step, const int *lane, int contiguous,
                            int nl, int n, int horizon)
{
    const real z = POLE;
    if (n == 1) {
        line_put(dst, step, lane, contiguous, nl, 0, line_get(src, step, lane, contiguous, 0));
        return;
    }
    /* c+(0) = sum over the mirrored line of z^k x(-k). */
    vreal c;
    if (n > horizon) {
        real zk = 1;
        c = 0;
        for (int k = 0; k <= horizon; k++) {
            c += zk * line_get(src, step, lane, contiguous, k);
            zk *= z;
        }
    } else {
        /* The mirrored line repeats every 2n - 2 samples. */
        const real zn = pown(z, n - 1), z2n = zn * zn;
        real zk = z, zr = z2n / z;
        c = line_get(src, step, lane, contiguous, 0) + zn * line_get(src, step, lane, contiguous, n - 1);
        for (int k = 1; k < n - 1; k++) {
            c += (zk + zr) * line_get(src, step, lane, contiguous, k);
            zk *= z;
            zr /= z;
        }
        c /= 1 - z2n;
    }
    c *= GAIN;
    line_put(dst, step, lane, contiguous, nl, 0, c);
    vreal last = c;
    for (int k = 1; k < n; k++) {
        last = c;
        c = GAIN * line_get(src, step, lane, contiguous, k) + z * c;
        line_put(dst, step, lane, contiguous, nl, k, c);
    }
    /* The anticausal recursion, from its value at the mirrored end. */
    c = z / (z * z - 1) * (c + z * last);
    line_put(dst, step, lane, contiguous, nl, n - 1, c);
    for (int k = n - 2; k >= 0; k--) {
        c = z * (c - line_get(dst, step, lane, contiguous, k));
        line_put(dst, step, lane, contiguous, nl, k, c);
    }
}

__kernel void bspline_rows_recursive(__global const real *in, __global real *out, int horizon, int w, int rows,
                                     int first_row)
{
    const int r0 = get_global_id(0) * 8;
    if (r0 >= rows)
        return;
    const int nl = min(8, rows - r0);
    int lane[8];
    for (int l = 0; l < 8; l++)
        lane[l] = min(l, nl - 1) * w;
    const size_t at = ((size_t)first_row + r0) * w;
    recursive_lines(in + at, out + at, 1, lane, 0, nl, w, horizon);
}

__kernel void bspline_columns_recursive(__global real *out, int horizon, int w, int h, int nimages, int first)
{
    const int x0 = get_global_id(0) * 8, img = get_global_id(1);
    if (x0 >= w || img >= nimages)
        return;
    const int nl = min(8, w - x0);
    int lane[8];
    for (int l = 0; l < 8; l++)
        lane[l] = min(l, nl - 1);
    __global real *p = out + ((size_t)first + img) * h * w + x0;
    recursive_lines(p, p, (size_t)w, lane, nl == 8, nl, h, horizon);
}
#endif
