/*
 * filter_vector.cl - a separable stage of any radius FILTER_R for CPU
 * devices: the same row pass into a temporary and column pass through the
 * epilogue as filter_separable.cl, with the same results, but each
 * work-item computes FV consecutive outputs of one row with explicit
 * vectors and no local memory or barriers. (A CPU runtime vectorises across
 * work-items only in loop-free kernels; filter_separable.cl's tap loops
 * after a barrier run scalar there.)
 *
 *  - filter_rows_vector: outputs x0 .. x0 + FV - 1 of row y are FILTER_TAPS
 *    unaligned vector loads of the row, each times one tap. Work-items
 *    whose taps reach past the ROI's left or right edge take each output
 *    alone under the border rule.
 *  - filter_columns_vector: FV columns of FILTER_K consecutive rows of
 *    the temporary's column pass: each of the FILTER_K + 2 FILTER_R rows
 *    they need (the border rule picks which) is one vector load, reused
 *    from registers for every output it weights, then the epilogue
 *    against the stage's input. (One output row per work-item read each
 *    input row from L2 FILTER_TAPS times.)
 *
 * NDRange: global (ceil(w / FV), h, images) for the rows and
 * (ceil(w / FV), ceil(h / FILTER_K), images) for the columns, any local.
 */
#include "filter_common.h"

#define FV 8                    /* outputs per work-item: the vector width */

#if USE_DOUBLE
typedef double8 vreal;
typedef long8 vmask;
#define convert_vreal convert_double8
#else
typedef float8 vreal;
typedef int8 vmask;
#define convert_vreal convert_float8
#endif

/* The epilogue of filter_common.h, FV values at a time. */
static inline vreal epilogue_vector(vreal s, vreal f)
{
#if FILTER_EPILOGUE == 0
    return f;
#elif FILTER_EPILOGUE == 1
    return s - f;
#else
    return select((vreal)0, s / f, (vmask)(f > (vreal)FILTER_DIVIDE_MIN));
#endif
}

__kernel void filter_rows_vector(__global const in_t *in, int in_offset, int in_pitch, int in_stride,
                                 __global real *tmp, int w, int h, __constant real *taps)
{
    const int x0 = get_global_id(0) * FV, y = get_global_id(1);
    const size_t img = get_global_id(2);
    if (x0 >= w || y >= h)
        return;
    __global const in_t *row = in + img * in_stride + in_offset + y * in_pitch;
    __global real *out = tmp + img * w * h + (size_t)y * w;

    if (x0 >= FILTER_R && x0 + FV + FILTER_R <= w) {
        vreal acc = 0;
        for (int k = 0; k < FILTER_TAPS; k++)
            acc = mad((vreal)taps[k], convert_vreal(vload8(0, row + x0 - FILTER_R + k)), acc);
        vstore8(acc, 0, out + x0);
        return;
    }
    for (int x = x0; x < x0 + FV && x < w; x++) {
        real acc = 0;
        for (int k = 0; k < FILTER_TAPS; k++)
            acc = mad(taps[k], fetch_border(row, 0, x - FILTER_R + k, 0, w, 1), acc);
        out[x] = acc;
    }
}

__kernel void filter_columns_vector(__global const real *tmp, __global const in_t *in, int in_offset, int in_pitch,
                                    int in_stride, __global real *out, int out_offset, int out_pitch,
                                    int out_stride, int w, int h, __constant real *taps)
{
    const int x0 = get_global_id(0) * FV, y0 = get_global_id(1) * FILTER_K;
    const size_t img = get_global_id(2);
    if (x0 >= w || y0 >= h)
        return;
    __global const real *plane = tmp + img * w * h;
    __global const in_t *src = in + img * in_stride + in_offset;
    __global real *dst = out + img * out_stride + out_offset;
    const int interior = y0 >= FILTER_R && y0 + FILTER_K + FILTER_R <= h;
    const int cols = min(FV, w - x0);

    /* Each of the FILTER_K + 2R rows read once, added to every output it
     * weights (output k takes row j with tap j - k, in the order of the
     * taps as the other paths add them). */
    vreal acc[FILTER_K];
    for (int k = 0; k < FILTER_K; k++)
        acc[k] = 0;
    for (int j = 0; j < FILTER_K + 2 * FILTER_R; j++) {
        const int y = y0 - FILTER_R + j;
        const int at = interior ? y : border_index(y, h);
        vreal value = 0;
        if (at >= 0 && cols == FV) {
            value = vload8(0, plane + (size_t)at * w + x0);
        } else if (at >= 0) {
            real part[FV] = { 0 };
            for (int x = 0; x < cols; x++)
                part[x] = plane[(size_t)at * w + x0 + x];
            value = vload8(0, part);
        }
        for (int k = 0; k < FILTER_K; k++) {
            const int tap = j - k;
            if (tap >= 0 && tap < FILTER_TAPS)
                acc[k] = mad((vreal)taps[tap], value, acc[k]);
        }
    }
    for (int k = 0; k < FILTER_K && y0 + k < h; k++) {
        __global const in_t *s = src + (y0 + k) * in_pitch + x0;
        __global real *d = dst + (y0 + k) * out_pitch + x0;
        if (cols == FV) {
            vstore8(epilogue_vector(convert_vreal(vload8(0, s)), acc[k]), 0, d);
        } else {
            real part[FV];
            vstore8(acc[k], 0, part);
            for (int x = 0; x < cols; x++)
                d[x] = epilogue((real)s[x], part[x]);
        }
    }
}
