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
 * resolution (ops/bspline_prefilter.c computes and normalises the taps).
 * Lines are mirrored about their edge samples ("101": -1 -> 1, n -> n - 2,
 * folded as often as needed on lines shorter than the filter), which is
 * how sample_windows reads coefficients outside the image, and on that
 * mirrored line the truncated FIR agrees with the exact recursion to the
 * working precision.
 *
 * GPUs run that FIR on the pre-filter's separable kernels
 * (cl/filter_separable.cl); this file holds the CPU devices' forms:
 *  - bspline_rows_vector: rows [first_row, first_row + rows) of `in` (the
 *    batch's images follow one another in memory, so the batch is one tall
 *    image) filtered along x into `out` from its start;
 *  - bspline_columns_vector: `rows` rows (whole images of h rows) of `in`
 *    filtered along y into `out` from image `first`;
 *  shaped as vector_layout.h says (a CPU runtime runs a scalar tap loop
 *  one lane at a time);
 *  - bspline_columns_recursive: the cubic B-spline's columns in place by
 *    the recursion (see there).
 * taps[0..radius]: taps[k] weights the samples k to either side.
 * Images: w x h reals each, rows tightly packed, one after another.
 * NDRange: the vector kernels global (1, rows) and (ceil(w / VECTOR_STRIP),
 * ceil(rows / VECTOR_STRIP_ROWS)), local (1, 1).
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

/* The vector forms (vector_layout.h): VECTOR_ACCUMULATORS vectors of
 * VECTOR_WIDTH outputs at a time; the columns add their taps in fir()'s
 * order, the rows left to right (the same sums, rounded differently). */
#include "vector_layout.h"
#include "vector_fir.h"

#define FV VECTOR_WIDTH
#define NA VECTOR_ACCUMULATORS
#define MAX_RADIUS 128          /* ops/bspline_prefilter.c's largest radius */

#if USE_DOUBLE
typedef double16 vwide;
#else
typedef float16 vwide;
#endif

/* Row r of `rows` rows from first_row: the line staged piece by piece in
 * private memory, mirrored at its ends there, so every tap is an unaligned
 * load from L1 and no output takes the mirrored path alone. */
__kernel void bspline_rows_vector(__global const real *in, __global real *out, __constant const real *taps,
                                  int radius, int w, int rows, int first_row)
{
    const int r = get_global_id(1);
    if (r >= rows)
        return;
    __global const real *line = in + ((size_t)first_row + r) * w;
    __global real *dst = out + (size_t)r * w;
    real staged[VECTOR_CHUNK + 2 * MAX_RADIUS];
    /* The taps left to right, in private memory: one multiply-add a tap
     * from there ran faster than fir()'s sums of mirrored pairs. */
    real full[2 * MAX_RADIUS + 1];
    for (int k = 0; k <= 2 * radius; k++)
        full[k] = taps[abs(k - radius)];

    for (int c0 = 0; c0 < w; c0 += VECTOR_CHUNK) {
        const int n = min(VECTOR_CHUNK, w - c0);
        if (c0 >= radius && c0 + n + radius <= w) {
            for (int i = 0; i < n + 2 * radius; i++)
                staged[i] = line[c0 - radius + i];
        } else {
            for (int i = 0; i < n + 2 * radius; i++)
                staged[i] = line[mirror_index(c0 - radius + i, w)];
        }
        fir_staged_row(staged, n, full, 2 * radius + 1, dst + c0);
    }
}

/* VECTOR_STRIP_ROWS rows of a VECTOR_STRIP-column strip; the last strip
 * of a row takes what is left one column at a time. */
__kernel void bspline_columns_vector(__global const real *in, __global real *out, __constant const real *taps,
                                     int radius, int w, int h, int rows, int first)
{
    const int x0 = get_global_id(0) * VECTOR_STRIP, r0 = get_global_id(1) * VECTOR_STRIP_ROWS;
    if (x0 >= w)
        return;
    for (int r = r0; r < r0 + VECTOR_STRIP_ROWS && r < rows; r++) {
        const int img = r / h, y = r - img * h;
        __global const real *plane = in + (size_t)img * w * h;
        __global real *dst = out + ((size_t)first * h + r) * w;
        if (x0 + VECTOR_STRIP > w) {
            for (int x = x0; x < w; x++)
                dst[x] = fir(plane + x, (size_t)w, y, h, taps, radius);
            continue;
        }
        __global const real *centre = plane + (size_t)y * w + x0;
        vwide sum[NA];
        #pragma unroll
        for (int j = 0; j < NA; j++)
            sum[j] = 0;
        if (y >= radius && y + radius < h) {
            for (int k = radius; k >= 1; k--) {
                __global const real *above = centre - (size_t)k * w, *below = centre + (size_t)k * w;
                #pragma unroll
                for (int j = 0; j < NA; j++)
                    sum[j] += taps[k] * (vload16(j, above) + vload16(j, below));
            }
        } else {
            for (int k = radius; k >= 1; k--) {
                __global const real *above = plane + (size_t)mirror_index(y - k, h) * w + x0;
                __global const real *below = plane + (size_t)mirror_index(y + k, h) * w + x0;
                #pragma unroll
                for (int j = 0; j < NA; j++)
                    sum[j] += taps[k] * (vload16(j, above) + vload16(j, below));
            }
        }
        #pragma unroll
        for (int j = 0; j < NA; j++)
            vstore16(sum[j] + taps[0] * vload16(j, centre), j, dst + x0);
    }
}

#if INTERP == 2
/*
 * The recursive form of the column pass, for CPU devices and the cubic
 * B-spline (its one pole): Unser's causal and anticausal first-order
 * recursions, about four operations a sample where the FIR takes
 * 2 radius + 1 (a CPU is not short of serial work, as a GPU is). Lines
 * mirror about their edge samples, as for the FIR; the causal recursion
 * starts from its sum over the mirrored line, cut after `horizon` samples
 * (the FIR's radius: the same tail) or exact on lines no longer than that.
 * Each work-item runs 8 lines at once in the lanes of a vector: 8
 * neighbouring columns, one vector load a sample. (Rows in lanes took a
 * gather and a scatter a sample and ran slower than bspline_rows_vector,
 * which the rows take instead.)
 *  - bspline_columns_recursive: in place in `out`, images [first, first +
 *    nimages), 8 columns a work-item.
 * NDRange: (ceil(w / 8), nimages), any local.
 */

#if USE_DOUBLE
typedef double8 vreal;
#else
typedef float8 vreal;
#endif
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
