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
 *  - filter_columns_vector: the same outputs of the temporary's column
 *    pass: FILTER_TAPS vector loads of the rows above and below (the border
 *    rule picks which rows), then the epilogue against the stage's input.
 *
 * NDRange: both global (ceil(w / FV), h, images), any local.
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
    const int x0 = get_global_id(0) * FV, y = get_global_id(1);
    const size_t img = get_global_id(2);
    if (x0 >= w || y >= h)
        return;
    __global const real *plane = tmp + img * w * h;
    __global const in_t *src = in + img * in_stride + in_offset + y * in_pitch;
    __global real *dst = out + img * out_stride + out_offset + y * out_pitch;
    const int interior = y >= FILTER_R && y + FILTER_R < h;

    if (x0 + FV <= w) {
        vreal acc = 0;
        for (int k = 0; k < FILTER_TAPS; k++) {
            const int at = interior ? y - FILTER_R + k : border_index(y - FILTER_R + k, h);
            if (at >= 0)
                acc = mad((vreal)taps[k], vload8(0, plane + (size_t)at * w + x0), acc);
        }
        vstore8(epilogue_vector(convert_vreal(vload8(0, src + x0)), acc), 0, dst + x0);
        return;
    }
    for (int x = x0; x < w; x++) {
        real acc = 0;
        for (int k = 0; k < FILTER_TAPS; k++) {
            const int at = interior ? y - FILTER_R + k : border_index(y - FILTER_R + k, h);
            if (at >= 0)
                acc = mad(taps[k], plane[(size_t)at * w + x], acc);
        }
        dst[x] = epilogue((real)src[x], acc);
    }
}
