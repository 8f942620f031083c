/*
 * filter_vector.cl - a separable stage of any radius FILTER_R for CPU
 * devices: the same row pass into a temporary and column pass through the
 * epilogue as filter_separable.cl, with the same results (every output
 * adds its taps in the same order), shaped for a CPU core rather than a
 * GPU's work-groups: few, long work-items, VECTOR_ACCUMULATORS
 * independent vector sums each (vector_layout.h says why), no local
 * memory and no barriers (a CPU runtime runs tap loops after a barrier one
 * work-item at a time, without vectors).
 *
 *  - filter_rows_vector: one row of one image. It stages the row piece by
 *    piece (VECTOR_CHUNK outputs and their 2 FILTER_R neighbours)
 *    in private memory as reals, the border rule applied there, so the
 *    FILTER_TAPS unaligned loads of each output vector read converted
 *    values from L1 (vector_fir.h, which the B-spline prefilter's rows
 *    share).
 *  - filter_columns_vector: FILTER_K rows of a VECTOR_STRIP-column
 *    strip. Each output row is FILTER_TAPS rows of the temporary, a
 *    contiguous strip each, times one tap, then the epilogue against the
 *    stage's input. The last strip of a row takes what is left one vector
 *    and then one column at a time.
 */
#include "filter_common.h"
#include "vector_layout.h"
#include "vector_fir.h"

#define FV VECTOR_WIDTH
#define NA VECTOR_ACCUMULATORS

#if USE_DOUBLE
typedef double16 vreal;
typedef long16 vmask;
#define convert_vreal convert_double16
#else
typedef float16 vreal;
typedef int16 vmask;
#define convert_vreal convert_float16
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
    const int y = get_global_id(1);
    const size_t img = get_global_id(2);
    if (y >= h)
        return;
    __global const in_t *row = in + img * in_stride + in_offset + y * in_pitch;
    __global real *out = tmp + img * w * h + (size_t)y * w;
    real staged[VECTOR_CHUNK + 2 * FILTER_R], t[FILTER_TAPS];
    for (int k = 0; k < FILTER_TAPS; k++)
        t[k] = taps[k];

    for (int c0 = 0; c0 < w; c0 += VECTOR_CHUNK) {
        const int n = min(VECTOR_CHUNK, w - c0);
        if (c0 >= FILTER_R && c0 + n + FILTER_R <= w) {
            for (int i = 0; i < n + 2 * FILTER_R; i++)
                staged[i] = (real)row[c0 - FILTER_R + i];
        } else {
            for (int i = 0; i < n + 2 * FILTER_R; i++)
                staged[i] = fetch_border(row, 0, c0 - FILTER_R + i, 0, w, 1);
        }
        fir_staged_row(staged, n, t, FILTER_TAPS, out + c0);
    }
}

__kernel void filter_columns_vector(__global const real *tmp, __global const in_t *in, int in_offset, int in_pitch,
                                    int in_stride, __global real *out, int out_offset, int out_pitch,
                                    int out_stride, int w, int h, __constant real *taps)
{
    const int x0 = get_global_id(0) * VECTOR_STRIP, y0 = get_global_id(1) * FILTER_K;
    const size_t img = get_global_id(2);
    if (x0 >= w || y0 >= h)
        return;
    __global const real *plane = tmp + img * w * h;
    __global const in_t *src = in + img * in_stride + in_offset;
    __global real *dst = out + img * out_stride + out_offset;
    const int strip = min(VECTOR_STRIP, w - x0), y1 = min(y0 + FILTER_K, h);

    for (int y = y0; y < y1; y++) {
        const int interior = y >= FILTER_R && y + FILTER_R < h;     /* no border rule: a pointer walk */
        __global const in_t *s = src + y * in_pitch;
        __global real *d = dst + y * out_pitch;
        if (strip == VECTOR_STRIP) {
            vreal acc[NA];
            #pragma unroll
            for (int j = 0; j < NA; j++)
                acc[j] = 0;
            if (interior) {
                __global const real *p = plane + (size_t)(y - FILTER_R) * w + x0;
                for (int k = 0; k < FILTER_TAPS; k++, p += w) {
                    const vreal tap = (vreal)taps[k];
                    #pragma unroll
                    for (int j = 0; j < NA; j++)
                        acc[j] = mad(tap, vload16(j, p), acc[j]);
                }
            } else {
                for (int k = 0; k < FILTER_TAPS; k++) {
                    const int at = border_index(y - FILTER_R + k, h);
                    const vreal tap = (vreal)taps[k];
                    #pragma unroll
                    for (int j = 0; j < NA && at >= 0; j++)     /* zero border: adds nothing */
                        acc[j] = mad(tap, vload16(j, plane + (size_t)at * w + x0), acc[j]);
                }
            }
            #pragma unroll
            for (int j = 0; j < NA; j++)
                vstore16(epilogue_vector(convert_vreal(vload16(0, s + x0 + j * FV)), acc[j]), 0, d + x0 + j * FV);
            continue;
        }
        /* The last, narrower strip: whole vectors, then single columns. */
        int x = x0;
        for (; x + FV <= w; x += FV) {
            vreal acc = 0;
            for (int k = 0; k < FILTER_TAPS; k++) {
                const int at = border_index(y - FILTER_R + k, h);
                if (at >= 0)
                    acc = mad((vreal)taps[k], vload16(0, plane + (size_t)at * w + x), acc);
            }
            vstore16(epilogue_vector(convert_vreal(vload16(0, s + x)), acc), 0, d + x);
        }
        for (; x < w; x++) {
            real acc = 0;
            for (int k = 0; k < FILTER_TAPS; k++) {
                const int at = border_index(y - FILTER_R + k, h);
                if (at >= 0)
                    acc = mad(taps[k], plane[(size_t)at * w + x], acc);
            }
            d[x] = epilogue((real)s[x], acc);
        }
    }
}
