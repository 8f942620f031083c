/*
 * filter_separable.cl - the general path for a separable stage of any radius
 * FILTER_R: a row pass into a temporary, then a column pass that writes the
 * result through the epilogue.
 *
 *  - filter_rows: a work-group of FILTER_ROWS_TX x FILTER_ROWS_TY work-items
 *    loads its rows' FILTER_ROWS_TX FILTER_ROWS_K + 2R pixels into local
 *    memory (under the border rule only where the segment crosses the ROI's
 *    left or right edge: a per-group decision), then each work-item
 *    computes FILTER_ROWS_K consecutive outputs.
 *    The temporary is w x h reals per image (offset 0, pitch w).
 *  - filter_columns: register blocking along y (the multidim-convolution
 *    seed): a work-item computes FILTER_K consecutive outputs of a column,
 *    reading each of the FILTER_K + 2R inputs they need once and adding it
 *    into every output it contributes to; the border rule applies only in
 *    work-groups whose rows reach past the ROI's top or bottom.
 * The taps come from constant memory; taps[0] weights the pixel FILTER_R
 * left of (above) the output.
 *
 * NDRange: filter_rows global (ceil(w / FILTER_ROWS_K), h, images) rounded up to
 * (FILTER_ROWS_TX, FILTER_ROWS_TY, 1); filter_columns global
 * (w, ceil(h / FILTER_K), images) rounded up to (FILTER_COLS_TX, FILTER_COLS_TY, 1).
 */
#include "filter_common.h"

#ifndef FILTER_K
#define FILTER_K 8              /* outputs per work-item along y in the column pass */
#endif
#ifndef FILTER_ROWS_TX
#define FILTER_ROWS_TX 64       /* row pass work-group width: consecutive x of one row */
#endif
#ifndef FILTER_ROWS_TY
#define FILTER_ROWS_TY 4        /* row pass work-group height */
#endif
#ifndef FILTER_COLS_TX
#define FILTER_COLS_TX 32       /* column pass work-group width: consecutive x, for coalescing */
#endif
#ifndef FILTER_COLS_TY
#define FILTER_COLS_TY 4        /* column pass work-group height, each work-item FILTER_K rows */
#endif

#ifndef FILTER_ROWS_K
#define FILTER_ROWS_K 1         /* outputs per work-item along x in the row pass (1, or a multiple of 4) */
#endif
#if FILTER_ROWS_K != 1 && FILTER_ROWS_K % 4 != 0
#error "FILTER_ROWS_K must be 1 or a multiple of 4"
#endif

#define ROWS_SPAN (FILTER_ROWS_TX * FILTER_ROWS_K)  /* outputs a row of the row pass's work-group writes */
#define SEGMENT (ROWS_SPAN + 2 * FILTER_R)          /* pixels a row of the row pass's work-group reads */
#define SEGMENT_ROW ((SEGMENT + 3) / 4 * 4)         /* its local row, whole vectors of 4 */
#define COLS_BLOCK (FILTER_COLS_TY * FILTER_K)     /* rows a column-pass work-group writes */

/*
 * filter_rows with FILTER_ROWS_K > 1 (register blocking along x): a
 * work-item reads the FILTER_ROWS_K + 2R values its outputs need from local
 * memory once, as vectors of 4 (consecutive work-items' vectors are
 * consecutive: no bank conflicts), and adds the taps from registers, each
 * output in tap order as the one-output form adds them. With one output per
 * work-item, every output read its 2R + 1 taps from local memory: on an H100
 * the radius-24 background's row pass was bound by those reads.
 */
#define ROW_VALUES ((FILTER_ROWS_K + 2 * FILTER_R + 3) / 4 * 4)

__kernel __attribute__((reqd_work_group_size(FILTER_ROWS_TX, FILTER_ROWS_TY, 1)))
void filter_rows(__global const in_t *in, int in_offset, int in_pitch, int in_stride,
                 __global real *tmp, int w, int h, __constant real *taps)
{
    __local real segment[FILTER_ROWS_TY][SEGMENT_ROW];
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int y = get_global_id(1);
    const size_t img = get_global_id(2);
    const int l = get_group_id(0) * ROWS_SPAN;
    /* Rows past the ROI load its last row (for the barrier), write nothing. */
    __global const in_t *row = in + img * in_stride + in_offset + min(y, h - 1) * in_pitch;

    if (l >= FILTER_R && l + SEGMENT - FILTER_R <= w) {
        for (int i = lx; i < SEGMENT; i += FILTER_ROWS_TX)
            segment[ly][i] = (real)row[l - FILTER_R + i];
    } else {
        for (int i = lx; i < SEGMENT; i += FILTER_ROWS_TX)
            segment[ly][i] = fetch_border(row, 0, l - FILTER_R + i, 0, w, 1);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (y >= h)
        return;
#if FILTER_ROWS_K == 1
    const int x = l + lx;
    if (x >= w)
        return;
    real acc = 0;
    for (int k = 0; k < FILTER_TAPS; k++)
        acc = mad(taps[k], segment[ly][lx + k], acc);
    tmp[img * w * h + (size_t)y * w + x] = acc;
#else
    const int x0 = l + lx * FILTER_ROWS_K;
    if (x0 >= w)
        return;
    /* The vectors past SEGMENT hold whatever local memory held: no output
     * takes them. */
    real v[ROW_VALUES];
#pragma unroll
    for (int q = 0; q < ROW_VALUES / 4; q++) {
        const real4 r = vload4(0, &segment[ly][lx * FILTER_ROWS_K + 4 * q]);
        v[4 * q] = r.s0;
        v[4 * q + 1] = r.s1;
        v[4 * q + 2] = r.s2;
        v[4 * q + 3] = r.s3;
    }
    __global real *out = tmp + img * w * h + (size_t)y * w;
    /* Four outputs at a time, stored as one vector: a warp's scalar stores
     * of every fourth value were four times the store transactions. */
#pragma unroll
    for (int m = 0; m < FILTER_ROWS_K; m += 4) {
        real4 acc = 0;
#pragma unroll
        for (int k = 0; k < FILTER_TAPS; k++) {
            acc.s0 = mad(taps[k], v[m + k], acc.s0);
            acc.s1 = mad(taps[k], v[m + 1 + k], acc.s1);
            acc.s2 = mad(taps[k], v[m + 2 + k], acc.s2);
            acc.s3 = mad(taps[k], v[m + 3 + k], acc.s3);
        }
        if (x0 + m + 4 <= w) {
            vstore4(acc, 0, out + x0 + m);
        } else {
            const real a[4] = { acc.s0, acc.s1, acc.s2, acc.s3 };
            for (int i = 0; i < 4 && x0 + m + i < w; i++)
                out[x0 + m + i] = a[i];
        }
    }
#endif
}

/* Input row j of a column pass's FILTER_K + 2R (output k takes it with tap
 * j - k), added to every output it weights, in the order of the taps as
 * the other paths add them. */
static inline void add_to_outputs(real *acc, int j, real value, __constant real *taps)
{
#pragma unroll
    for (int k = 0; k < FILTER_K; k++) {
        const int tap = j - k;
        if (tap >= 0 && tap < FILTER_TAPS)
            acc[k] = mad(taps[tap], value, acc[k]);
    }
}

__kernel __attribute__((reqd_work_group_size(FILTER_COLS_TX, FILTER_COLS_TY, 1)))
void filter_columns(__global const real *tmp, __global const in_t *in, int in_offset, int in_pitch, int in_stride,
                    __global real *out, int out_offset, int out_pitch, int out_stride, int w, int h,
                    __constant real *taps)
{
    const int x = get_global_id(0);
    const int y0 = get_global_id(1) * FILTER_K;
    const size_t img = get_global_id(2);
    const int top = get_group_id(1) * COLS_BLOCK;
    const int interior = top >= FILTER_R && top + COLS_BLOCK + FILTER_R <= h;
    if (x >= w || y0 >= h)
        return;
    __global const real *column = tmp + img * w * h + x;

    real acc[FILTER_K];
    for (int k = 0; k < FILTER_K; k++)
        acc[k] = 0;
    /* Two loops, not one with a choice per row: compilers computed the
     * border rule's index (a modulo) for every row and then chose. */
    if (interior) {
        __global const real *p = column + (size_t)(y0 - FILTER_R) * w;
#pragma unroll
        for (int j = 0; j < FILTER_K + 2 * FILTER_R; j++, p += w)
            add_to_outputs(acc, j, *p, taps);
    } else {
        for (int j = 0; j < FILTER_K + 2 * FILTER_R; j++) {
            const int at = border_index(y0 - FILTER_R + j, h);
            add_to_outputs(acc, j, at < 0 ? (real)0 : column[(size_t)at * w], taps);
        }
    }

    __global const in_t *src = in + img * in_stride + in_offset + x;
    __global real *dst = out + img * out_stride + out_offset + x;
    for (int k = 0; k < FILTER_K; k++) {
        const int y = y0 + k;
        if (y < h)
            dst[y * out_pitch] = epilogue((real)src[y * in_pitch], acc[k]);
    }
}
